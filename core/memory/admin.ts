/**
 * What the user does with memory, as data: the list by scope and type, the
 * archive, revisions, restore, forget and recover. The `/memory` command
 * (core/host/commands/memory.ts), the serve API (core/serve/routes/memory.ts)
 * and `reasonix memory` all go through here. These are the user's own acts:
 * no model approval, but the store still validates every change.
 */
import { secretFindings } from "../crash/scrub.ts";
import { copyPath, readFactCopy } from "./copy.ts";
import type { Fact } from "./fact.ts";
import { STALE_DAYS } from "./recall.ts";
import type { MemoryStore } from "./store.ts";

export interface FactView extends Fact {
  archived: boolean;
  /** Not updated for STALE_DAYS: recall ranks it lower. */
  stale: boolean;
}

export interface Unreadable {
  file: string;
  field: string;
  message: string;
}

export interface FactList {
  /** The workspace the project facts belong to (its real path). */
  workspace: string;
  facts: FactView[];
  problems: Unreadable[];
}

const view = (f: Fact, archived: boolean, now = Date.now()): FactView => ({ ...f, archived, stale: now - Date.parse(f.updated) > STALE_DAYS * 86_400_000 });

/** Live facts (or the archived ones), project first, then by type and id. */
export function listFacts(store: MemoryStore, which: "live" | "archived" = "live"): FactList {
  const got = which === "live" ? store.list() : store.archived();
  const order = (f: Fact) => `${f.scope === "project" ? 0 : 1}:${f.type}:${f.id}`;
  const facts = got.facts.map((f) => view(f, which === "archived")).sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  return { workspace: store.projectWorkspace, facts, problems: got.problems.map((p) => ({ file: p.file, field: p.field, message: p.message })) };
}

export function factRevisions(store: MemoryStore, id: string): (FactView & { current: boolean })[] {
  return store.revisions(id).map((r) => ({ ...view(r.fact, r.archived), current: r.current }));
}

export interface Recovered {
  fact: Fact;
  /** The store knew the id: the copy became a new revision above the kept ones. */
  known: boolean;
  /** Where the copy was read from. */
  source: string;
  /** What looks like a secret in the text (recovered anyway: the user asked). */
  secrets: string[];
}

/** `path` (relative to `cwd`) read and validated as a fact, then brought back as a new revision. */
export function recoverFact(store: MemoryStore, path: string, cwd: string): Recovered {
  const copy = readFactCopy(path, cwd);
  const { fact, known } = store.recover(copy);
  return { fact, known, source: copyPath(path, cwd), secrets: secretFindings(fact.text) };
}
