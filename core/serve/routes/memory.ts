// The Memory panel's API (core/memory/admin.ts, the same operations as
// `/memory`): the facts by scope and type with the archive, a fact's
// revisions, forget, restore and recover, and the recall trace of a session's
// last turn. The user's own acts — no model approval, validated by the store.
import { factRevisions, listFacts, recoverFact } from "../../memory/admin.ts";
import { ID_PATTERN } from "../../memory/fact.ts";
import { ApiError, withStatuses } from "../api-error.ts";
import { need, readJson, type Body } from "./body.ts";
import type { ServeApp, ServeDeps } from "./context.ts";
import { json } from "./respond.ts";

const STATUS: Record<string, number> = { memory_not_found: 404, memory_conflict: 409, memory_archived: 409 };

/** A store refusal keeps its code; a missing fact is 404 and a conflict 409 instead of the usual 400. */
const store = <T>(run: () => T): T => withStatuses(STATUS, run);

function factId(raw: string): string {
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    id = "";
  }
  if (!ID_PATTERN.test(id)) throw new ApiError(400, "bad_id", "malformed fact id (lowercase letters, digits, dashes)");
  return id;
}

function revision(b: Body, required: boolean): number | undefined {
  const v = b.revision;
  if (v === undefined && !required) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) throw new ApiError(400, "bad_request", '"revision" must be a positive whole number');
  return v;
}

export function memoryRoutes(app: ServeApp, { sessions }: ServeDeps): void {
  app.get("/api/memory", () => {
    const mem = sessions.memory();
    const live = store(() => listFacts(mem.store));
    const archived = store(() => listFacts(mem.store, "archived"));
    return json({ workspace: live.workspace, recallOn: mem.recallOn, facts: live.facts, archived: archived.facts, problems: [...live.problems, ...archived.problems] });
  });
  // The trace of the last recall of a session (none before its first real turn).
  app.get("/api/memory/recall", (c) => {
    const mem = sessions.memory();
    const id = c.env.url.searchParams.get("session") ?? "";
    return json({ recallOn: mem.recallOn, trace: (id && mem.lastRecall(id)) || null });
  });
  app.get("/api/memory/facts/:id/revisions", (c) => {
    const id = factId(c.req.param("id")!);
    return json({ id, revisions: store(() => factRevisions(sessions.memory().store, id)) });
  });
  app.post("/api/memory/facts/:id/forget", async (c) => {
    const id = factId(c.req.param("id")!);
    const rev = revision(await readJson(c.req.raw), false);
    return json({ fact: store(() => sessions.memory().store.forget(id, rev)), archived: true });
  });
  app.post("/api/memory/facts/:id/restore", async (c) => {
    const id = factId(c.req.param("id")!);
    const rev = revision(await readJson(c.req.raw), true)!;
    return json({ fact: store(() => sessions.memory().store.restore(id, rev)) });
  });
  // A fact file on the machine the server runs on (a backup): validated, then a new revision.
  app.post("/api/memory/recover", async (c) => {
    const path = need(await readJson(c.req.raw), "path");
    if (path.length > 4096 || path.includes("\0")) throw new ApiError(400, "bad_request", '"path" is not a usable path');
    const r = store(() => recoverFact(sessions.memory().store, path, sessions.engineWorkspace));
    return json(r);
  });
}
