// The Memory panel's data: the facts (live and archived), the open
// session's last recall trace, a fact's revisions, and the user's own acts —
// forget, restore, recover — through the serve API (core/serve/routes/memory.ts).
import type { FactView } from "../../../memory/admin.ts";
import type { RecallTrace } from "../../../memory/recall.ts";
import { api } from "./api.ts";
import { changed, state } from "./store.ts";

/** A fact as the API lists it (core/memory/admin.ts); `current` in a revision list. */
export type FactRow = FactView & { current?: boolean };
export type { RecallTrace };

export const memory = {
  open: false,
  loading: false,
  workspace: "",
  recallOn: true,
  facts: [] as FactRow[],
  archived: [] as FactRow[],
  problems: [] as { message: string }[],
  /** The open session's last recall (null: none yet). */
  trace: null as RecallTrace | null,
  /** The fact whose revisions are shown. */
  revisionsOf: null as string | null,
  revisions: [] as FactRow[],
  /** What the last act did (or why it failed). */
  note: null as { text: string; tone: "info" | "error" } | null,
};

export async function loadMemory(): Promise<void> {
  memory.loading = true;
  changed();
  try {
    const all = await api<{ workspace: string; recallOn: boolean; facts: FactRow[]; archived: FactRow[]; problems: { message: string }[] }>("GET", "/api/memory");
    Object.assign(memory, { workspace: all.workspace, recallOn: all.recallOn, facts: all.facts, archived: all.archived, problems: all.problems });
    const id = state.current;
    memory.trace = id ? (await api<{ trace: RecallTrace | null }>("GET", `/api/memory/recall?session=${encodeURIComponent(id)}`)).trace : null;
    if (memory.revisionsOf) await showRevisions(memory.revisionsOf, false);
  } catch (x) {
    memory.note = { text: `Could not load memory: ${(x as Error).message}`, tone: "error" };
  } finally {
    memory.loading = false;
    changed();
  }
}

export function openMemory(open = !memory.open): void {
  memory.open = open;
  memory.note = null;
  // On a phone the panel opens from the sessions drawer: the drawer makes way.
  if (open) state.drawer = false;
  changed();
  if (open) void loadMemory();
}

export async function showRevisions(id: string | null, render = true): Promise<void> {
  memory.revisionsOf = id;
  memory.revisions = id ? (await api<{ revisions: FactRow[] }>("GET", `/api/memory/facts/${encodeURIComponent(id)}/revisions`)).revisions : [];
  if (render) changed();
}

/** Run one of the user's acts, say what it did, and reload. */
async function act(run: () => Promise<string>): Promise<void> {
  try {
    memory.note = { text: await run(), tone: "info" };
  } catch (x) {
    memory.note = { text: (x as Error).message, tone: "error" };
  }
  await loadMemory();
}

const factPath = (id: string, action: string) => `/api/memory/facts/${encodeURIComponent(id)}/${action}`;

export const forgetFact = (f: FactRow) =>
  act(async () => {
    await api("POST", factPath(f.id, "forget"), { revision: f.revision });
    return `Archived ${f.id} at revision ${f.revision}.`;
  });

export const restoreFact = (id: string, revision: number) =>
  act(async () => {
    const r = await api<{ fact: FactRow }>("POST", factPath(id, "restore"), { revision });
    return `Restored ${id} revision ${revision} as revision ${r.fact.revision}.`;
  });

export const recoverFact = (path: string) =>
  act(async () => {
    const r = await api<{ fact: FactRow; source: string; secrets: string[] }>("POST", "/api/memory/recover", { path });
    const secret = r.secrets.length ? ` Note: the text looks like it holds a secret (${r.secrets.join(", ")}).` : "";
    return `Recovered ${r.fact.id} from ${r.source} as revision ${r.fact.revision}.${secret}`;
  });
