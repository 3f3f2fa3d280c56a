/**
 * The fact store: create, update (with the expected revision), forget
 * (archive, never delete), restore (a higher revision), revisions. Every
 * write is atomic and 0600; every change keeps the previous revision as a
 * snapshot, so nothing a user or the model remembered is ever lost.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { Bm25Part } from "../docs/bm25.ts";
import { ReasonixError } from "../errors.ts";
import { beginAtomicWrite, writeFileAtomic, type AtomicWrite } from "../fs/atomic.ts";
import { factPart, fileStamp, indexPath, loadDirIndex, saveDirIndex } from "./dir-index.ts";
import { FACT_SCOPES, FactParseError, ID_PATTERN, formatFact, parseFact, type Fact, type FactScope, type FactType } from "./fact.ts";
import { withFactLock } from "./lock.ts";
import { memoryPaths, realWorkspace, type MemoryPaths } from "./paths.ts";
import { randomHex } from "../random.ts";

/** The longest fact the store accepts (the model's own creates are bounded tighter). */
export const MAX_FACT_CHARS = 8000;
const FILE = { mode: 0o600, dirMode: 0o700 };

export interface FactListing {
  facts: Fact[];
  /** Files that could not be read as facts (each names its file and field). */
  problems: FactParseError[];
}

interface CachedFile {
  /** "" when the file must be read again next time. */
  stamp: string;
  fact?: Fact;
  problem?: FactParseError;
}

interface CachedDir {
  stamp: string;
  files: Map<string, CachedFile>;
  /** A facts folder's BM25 statistics (recall's index), its facts in file order. */
  part?: Bm25Part;
}

/** A folder's facts and problems added to a listing. */
function collect(out: FactListing, d: CachedDir): void {
  for (const f of d.files.values()) {
    if (f.fact) out.facts.push(f.fact);
    if (f.problem) out.problems.push(f.problem);
  }
}

function factsOf(d: { files: Map<string, { fact?: Fact }> }): Fact[] {
  const out: Fact[] = [];
  for (const f of d.files.values()) if (f.fact) out.push(f.fact);
  return out;
}

export interface FactRecord {
  fact: Fact;
  archived: boolean;
  path: string;
}

function conflict(id: string, expected: number, actual: number | "archived" | "missing"): ReasonixError {
  const now = actual === "archived" ? "it was archived" : actual === "missing" ? "it does not exist" : `it is at revision ${actual}`;
  return new ReasonixError("memory_conflict", `fact ${id} changed meanwhile: expected revision ${expected}, but ${now}`, {
    hint: "read the fact again (`reasonix memory show`) and apply the change to the current revision",
  });
}

const notFound = (id: string) => new ReasonixError("memory_not_found", `no fact ${id}`, { hint: "`reasonix memory list --all` lists live and archived facts" });

function checkText(text: string): string {
  const t = text.trim();
  if (!t) throw new ReasonixError("usage", "a fact needs some text");
  if (t.length > MAX_FACT_CHARS) throw new ReasonixError("memory_too_large", `a fact holds at most ${MAX_FACT_CHARS} characters (this one has ${t.length})`);
  return t;
}

/** `tests-need-docker-3fa9c1`: a few words of the text and 6 random hex digits. */
export function newFactId(text: string): string {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const slug = words.slice(0, 5).join("-").slice(0, 40).replace(/-+$/, "");
  const rand = randomHex(3);
  return slug ? `${slug}-${rand}` : `fact-${rand}`;
}

export class MemoryStore {
  readonly paths: MemoryPaths;
  private readonly cache = new Map<string, CachedDir>();

  constructor(readonly home: string, readonly workspace: string) {
    this.paths = memoryPaths(home, workspace);
  }

  /** Live facts of both scopes (archived too with `archived`), project first, each sorted by id. */
  list(opts: { archived?: boolean; scope?: FactScope } = {}): FactListing {
    const out: FactListing = { facts: [], problems: [] };
    for (const scope of opts.scope ? [opts.scope] : FACT_SCOPES) {
      const p = this.paths.scope(scope);
      for (const dir of opts.archived ? [p.facts, p.archived] : [p.facts]) {
        collect(out, this.readDir(dir, dir === p.facts));
      }
    }
    return out;
  }

  /** Live facts of both scopes as `list` gives them, with each folder's BM25 statistics (recall's index). */
  searchable(): { facts: Fact[]; parts: Bm25Part[] } {
    const out: { facts: Fact[]; parts: Bm25Part[] } = { facts: [], parts: [] };
    for (const scope of FACT_SCOPES) {
      const got = this.readDir(this.paths.scope(scope).facts, true);
      const facts = factsOf(got);
      out.facts.push(...facts);
      out.parts.push(got.part ?? factPart(facts));
    }
    return out;
  }

  /**
   * Parsed files of one folder, re-read only when the folder or a file changed
   * since the last look. A facts folder's first look in this process starts
   * from its on-disk index (dir-index.ts): only files whose stamp changed are
   * parsed, and the index is rewritten when anything differed.
   */
  private readDir(dir: string, indexed = false): CachedDir {
    let st;
    try {
      st = statSync(dir);
    } catch {
      return { stamp: "", files: new Map() };
    }
    const dirStamp = fileStamp(st);
    const entry = this.cache.get(dir);
    if (entry && entry.stamp === dirStamp) return entry;
    const disk = indexed && !entry ? loadDirIndex(dir) : undefined;
    let write: AtomicWrite | undefined;
    try {
      if (indexed) write = beginAtomicWrite(indexPath(dir), FILE);
    } catch {
      // A read-only home: no index, and stamps are trusted as before.
    }
    // A stamp taken within the clock tick of this look may not change with the next write: keep none.
    const trusted = (s: Stats, stamp: string) => (write && s.ctimeMs >= write.startedMs ? "" : stamp);
    const prev = entry ?? disk;
    const keptDir = trusted(st, dirStamp);
    // What to redo: the search statistics when a fact changed; the on-disk index when any recorded stamp did.
    let factsChanged = !prev;
    let stampsChanged = (entry ? entry.stamp : disk?.dirStamp) !== keptDir;
    // The folder's stamp unchanged (and trusted when recorded): its listing is the recorded one.
    const names = !entry && disk?.dirStamp && disk.dirStamp === dirStamp ? [...disk.files.keys()] : readdirSync(dir).filter((n) => n.endsWith(".md")).sort();
    const files = new Map<string, CachedFile>();
    for (const name of names) {
      const path = join(dir, name);
      try {
        const fst = statSync(path);
        const stamp = fileStamp(fst);
        const old = prev?.files.get(name);
        const same = !!old && old.stamp === stamp;
        const reuse = same && (old.fact || ("problem" in old && old.problem));
        const f: CachedFile = { ...(reuse ? old : this.parseFile(path, name)), stamp: trusted(fst, stamp) };
        if (!same || f.stamp !== stamp) stampsChanged = true;
        if (f.fact !== old?.fact) factsChanged = true;
        files.set(name, f);
      } catch {
        stampsChanged = true; // removed between readdir and stat: not a fact any more
      }
    }
    const fresh: CachedDir = { stamp: keptDir, files };
    // Every fact here is the very one recorded under its name: the same set only if as many were recorded.
    if (prev && factsOf(fresh).length !== factsOf(prev).length) factsChanged = true;
    if (indexed) {
      fresh.part = factsChanged || !prev?.part ? factPart(factsOf(fresh)) : prev.part;
      try {
        if (write && (factsChanged || stampsChanged || !prev)) saveDirIndex(write, dir, { dirStamp: keptDir, files, part: fresh.part });
      } catch {
        // No index this time (a full disk): the next process reads the files.
      }
    }
    write?.abort();
    this.cache.set(dir, fresh);
    return fresh;
  }

  private parseFile(path: string, name: string): { fact?: Fact; problem?: FactParseError } {
    try {
      const fact = parseFact(path, readFileSync(path, "utf8"));
      if (`${fact.id}.md` !== name) throw new FactParseError(path, "id", `${fact.id} does not match the file name`);
      return { fact };
    } catch (e) {
      if (e instanceof FactParseError) return { problem: e };
      throw e;
    }
  }

  /** Archived (forgotten) facts of both scopes, project first. */
  archived(): FactListing {
    const out: FactListing = { facts: [], problems: [] };
    for (const scope of FACT_SCOPES) {
      collect(out, this.readDir(this.paths.scope(scope).archived));
    }
    return out;
  }

  /** The live or archived fact with this id (the file is read now, not from the cache). */
  get(id: string): FactRecord | undefined {
    if (!ID_PATTERN.test(id)) return undefined;
    for (const scope of FACT_SCOPES) {
      const p = this.paths.scope(scope);
      for (const [dir, archived] of [[p.facts, false], [p.archived, true]] as const) {
        const path = join(dir, `${id}.md`);
        if (existsSync(path)) return { fact: parseFact(path, readFileSync(path, "utf8")), archived, path };
      }
    }
    return undefined;
  }

  create(o: { text: string; type: FactType; scope: FactScope; id?: string }): Fact {
    const text = checkText(o.text);
    const id = o.id ?? newFactId(text);
    if (!ID_PATTERN.test(id)) throw new ReasonixError("usage", `${JSON.stringify(id)} is not a fact id (lowercase letters, digits, dashes)`);
    return withFactLock(this.paths.locks, id, () => {
      // Create-only: an id that appeared meanwhile (live, archived or with history) is never overwritten.
      if (this.get(id) || existsSync(join(this.paths.scope(o.scope).revisions, id))) throw new ReasonixError("memory_conflict", `fact ${id} already exists`);
      const at = new Date().toISOString();
      const fact: Fact = { id, revision: 1, created: at, updated: at, type: o.type, scope: o.scope, text };
      this.writeLive(fact);
      return fact;
    });
  }

  /** Change a live fact; `expectedRevision` is the revision the change was based on (else a conflict). */
  update(id: string, expectedRevision: number, change: { text?: string; type?: FactType }): Fact {
    const text = change.text === undefined ? undefined : checkText(change.text);
    return withFactLock(this.paths.locks, id, () => {
      const cur = this.get(id);
      if (!cur) throw conflict(id, expectedRevision, "missing");
      if (cur.archived) throw conflict(id, expectedRevision, "archived");
      if (cur.fact.revision !== expectedRevision) throw conflict(id, expectedRevision, cur.fact.revision);
      this.snapshot(cur.fact);
      const next: Fact = { ...cur.fact, revision: cur.fact.revision + 1, updated: new Date().toISOString(), ...(text ? { text } : {}), ...(change.type ? { type: change.type } : {}) };
      this.writeLive(next);
      return next;
    });
  }

  /** Archive a live fact: it leaves recall and the list, its revisions stay, restore brings it back. */
  forget(id: string, expectedRevision?: number): Fact {
    return withFactLock(this.paths.locks, id, () => {
      const cur = this.get(id);
      if (!cur) throw notFound(id);
      if (cur.archived) throw new ReasonixError("memory_archived", `fact ${id} is already archived`, { hint: `restore it with \`reasonix memory restore ${id} ${cur.fact.revision}\`` });
      if (expectedRevision !== undefined && cur.fact.revision !== expectedRevision) throw conflict(id, expectedRevision, cur.fact.revision);
      this.snapshot(cur.fact);
      const to = join(this.paths.scope(cur.fact.scope).archived, `${id}.md`);
      mkdirSync(this.paths.scope(cur.fact.scope).archived, { recursive: true, mode: 0o700 });
      renameSync(cur.path, to);
      return cur.fact;
    });
  }

  /** Every revision known of a fact, oldest first (snapshots, then the live or archived copy). */
  revisions(id: string): { fact: Fact; archived: boolean; current: boolean }[] {
    const cur = this.get(id);
    const scopes = cur ? [cur.fact.scope] : FACT_SCOPES;
    const out = new Map<number, { fact: Fact; archived: boolean; current: boolean }>();
    for (const scope of scopes) {
      const dir = join(this.paths.scope(scope).revisions, id);
      if (!ID_PATTERN.test(id) || !existsSync(dir)) continue;
      for (const name of readdirSync(dir).filter((n) => /^\d+\.md$/.test(n))) {
        const f = parseFact(join(dir, name), readFileSync(join(dir, name), "utf8"));
        out.set(f.revision, { fact: f, archived: false, current: false });
      }
    }
    if (cur) out.set(cur.fact.revision, { fact: cur.fact, archived: cur.archived, current: true });
    if (out.size === 0) throw notFound(id);
    return [...out.values()].sort((a, b) => a.fact.revision - b.fact.revision);
  }

  /** Make revision `rev`'s content live again as a new, higher revision (an archived fact comes back). */
  restore(id: string, rev: number): Fact {
    return withFactLock(this.paths.locks, id, () => {
      const all = this.revisions(id);
      const want = all.find((r) => r.fact.revision === rev);
      if (!want) throw new ReasonixError("memory_not_found", `fact ${id} has no revision ${rev}`, { hint: `revisions: ${all.map((r) => r.fact.revision).join(", ")}` });
      const cur = this.get(id);
      if (cur && !cur.archived) this.snapshot(cur.fact);
      const top = all[all.length - 1]!.fact.revision;
      const next: Fact = { ...want.fact, revision: top + 1, created: all[0]!.fact.created, updated: new Date().toISOString() };
      this.writeLive(next);
      if (cur?.archived) unlinkSync(cur.path);
      return next;
    });
  }

  /**
   * Bring back a fact from a copy (a backup, another machine's file): when
   * this store knows the id (live, archived or by its history), the copy's
   * text and type become a new revision above every one kept, in the scope
   * the fact already has; an id never seen is written as the copy says.
   * History is never overwritten.
   */
  recover(copy: Fact): { fact: Fact; known: boolean } {
    const text = checkText(copy.text);
    return withFactLock(this.paths.locks, copy.id, () => {
      const cur = this.get(copy.id);
      const hist = this.history(copy.id);
      if (!cur && !hist) {
        const fact: Fact = { ...copy, text };
        this.writeLive(fact);
        return { fact, known: false };
      }
      if (cur && !cur.archived) this.snapshot(cur.fact);
      const top = Math.max(cur?.fact.revision ?? 0, hist?.top ?? 0);
      const scope = cur?.fact.scope ?? hist!.scope;
      const created = cur?.fact.created ?? hist!.created;
      const fact: Fact = { id: copy.id, revision: top + 1, created, updated: new Date().toISOString(), type: copy.type, scope, text };
      this.writeLive(fact);
      if (cur?.archived) unlinkSync(cur.path);
      return { fact, known: true };
    });
  }

  /** The scope, highest snapshot revision and first creation date of a fact's kept revisions, if any. */
  private history(id: string): { scope: FactScope; top: number; created: string } | undefined {
    for (const scope of FACT_SCOPES) {
      const dir = join(this.paths.scope(scope).revisions, id);
      if (!existsSync(dir)) continue;
      const revs = readdirSync(dir).filter((n) => /^\d+\.md$/.test(n)).map((n) => Number(n.slice(0, -3))).sort((a, b) => a - b);
      if (!revs.length) continue;
      const first = join(dir, `${revs[0]}.md`);
      return { scope, top: revs[revs.length - 1]!, created: parseFact(first, readFileSync(first, "utf8")).created };
    }
    return undefined;
  }

  /** The workspace these project facts belong to (the real path). */
  get projectWorkspace(): string {
    return realWorkspace(this.workspace);
  }

  private snapshot(f: Fact): void {
    const dir = join(this.paths.scope(f.scope).revisions, f.id);
    writeFileAtomic(join(dir, `${f.revision}.md`), formatFact(f), FILE);
  }

  private writeLive(f: Fact): void {
    const p = this.paths.scope(f.scope);
    if (f.scope === "project" && !existsSync(join(p.dir, "workspace.txt"))) writeFileAtomic(join(p.dir, "workspace.txt"), `${realWorkspace(this.workspace)}\n`, FILE);
    writeFileAtomic(join(p.facts, `${f.id}.md`), formatFact(f), FILE);
  }
}
