import { sha256 } from "../trust/inputs.ts";
import { closeSync, existsSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { SessionSummary } from "../engine/types.ts";
import { ReasonixError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { processAlive } from "../process/alive.ts";
import { AppendLog, parseJsonl } from "./log.ts";
import type { MetaRecord, SessionRecord } from "./records.ts";
import { replay, type SessionState } from "./replay.ts";
import { randomHex } from "../random.ts";

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,80}$/;

export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomHex(3)}`;
}

/** An open session: its log, records so far, and where its blobs live. */
export class SessionFile {
  constructor(
    readonly id: string,
    readonly log: AppendLog<SessionRecord>,
    readonly records: SessionRecord[],
    readonly blobDir: string,
    private readonly lockPath: string,
  ) {}

  append(r: SessionRecord): void {
    this.log.append(r);
    this.records.push(r);
  }

  /** Resolves once every record appended so far is on disk (AppendLog.flushed). */
  flushed(): Promise<void> {
    return this.log.flushed();
  }

  state(): SessionState {
    return replay(this.records);
  }

  /** Store file content by hash (written atomically before the record that names it). */
  putBlob(data: Uint8Array): string {
    const hash = sha256(data);
    const p = join(this.blobDir, hash);
    if (!existsSync(p)) writeFileAtomic(p, data, { mode: 0o600, dirMode: 0o700 });
    return hash;
  }

  getBlob(hash: string): Buffer {
    return readFileSync(join(this.blobDir, hash));
  }

  close(): void {
    this.log.close();
    try {
      if (readFileSync(this.lockPath, "utf8").trim() === String(process.pid)) unlinkSync(this.lockPath);
    } catch {}
  }
}

function readLastByte(fd: number, size: number): number {
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, size - 1);
  return b[0]!;
}

/** The user's title, else the first prompt (one line, at most 80 characters). */
export const shownTitle = (st: SessionState): string => st.title ?? (st.turns[0]?.prompt ?? "").replace(/\s+/g, " ").trim().slice(0, 80);

/**
 * A session someone can go on with: it has a turn, or the user named it or
 * forked it. One created but never prompted (a crash, a front end closed
 * before its first prompt) has nothing to resume.
 */
export const offeredForResume = (s: SessionSummary): boolean => s.turns > 0 || !!s.title || !!s.forkedFrom;

/** Sessions under `$REASONIX_HOME/sessions/`: `<id>.jsonl` plus `<id>/blobs/`. */
export class SessionStore {
  /** Summaries by id, valid while the log's size and mtime are unchanged. */
  private readonly summaries = new Map<string, { stamp: string; summary: SessionSummary }>();
  constructor(readonly dir: string) {}

  private logPath = (id: string) => join(this.dir, `${id}.jsonl`);
  private lockPath = (id: string) => join(this.dir, `${id}.lock`);
  private blobDir = (id: string) => join(this.dir, id, "blobs");

  /** Where session `id`'s queue of follow-up prompts lives: beside its blobs, deleted with it. */
  queuePath(id: string): string {
    this.checkId(id);
    return join(this.dir, id, "queue.json");
  }

  /** Where session `id`'s last recall trace lives (core/memory/traces.ts): beside its blobs, deleted with it. */
  recallPath(id: string): string {
    this.checkId(id);
    return join(this.dir, id, "recall.json");
  }

  private checkId(id: string): void {
    if (!ID.test(id)) throw new ReasonixError("session_id", `invalid session id "${id}"`, { exitCode: 2 });
  }

  /** One process per session: a lock file holding our pid; a dead owner's lock is taken over. */
  private lock(id: string): void {
    const p = this.lockPath(id);
    for (let i = 0; i < 3; i++) {
      try {
        const fd = openSync(p, "wx", 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        const owner = Number(readFileSync(p, "utf8").trim());
        if (owner && processAlive(owner)) {
          throw new ReasonixError("session_busy", `session ${id} is in use by process ${owner}${owner === process.pid ? " (this one)" : ""}`);
        }
        try { unlinkSync(p); } catch {}
      }
    }
    throw new ReasonixError("session_busy", `cannot lock session ${id}`);
  }

  create(meta: Omit<MetaRecord, "t" | "v" | "id"> & { id?: string }): SessionFile {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const id = meta.id ?? newSessionId();
    this.checkId(id);
    this.lock(id);
    const log = AppendLog.create<SessionRecord>(this.logPath(id));
    const rec: MetaRecord = { t: "meta", v: 1, id, workspace: meta.workspace, model: meta.model, createdAt: meta.createdAt };
    log.append(rec);
    return new SessionFile(id, log, [rec], this.blobDir(id), this.lockPath(id));
  }

  /**
   * A new session whose log starts with `records` (its meta record first),
   * written whole and atomically, then opened for appending like any other.
   */
  createFrom(records: SessionRecord[]): SessionFile {
    const meta = records[0];
    if (meta?.t !== "meta") throw new Error("a session log starts with its meta record");
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.checkId(meta.id);
    if (existsSync(this.logPath(meta.id))) throw new ReasonixError("session_exists", `session ${meta.id} already exists`);
    this.lock(meta.id);
    try {
      writeFileAtomic(this.logPath(meta.id), records.map((r) => `${JSON.stringify(r)}\n`).join(""), { mode: 0o600, dirMode: 0o700 });
      return this.attach(meta.id);
    } catch (e) {
      try { unlinkSync(this.lockPath(meta.id)); } catch {}
      throw e;
    }
  }

  /** A session's records, read without its lock (the owner only ever appends whole lines). */
  records(id: string): SessionRecord[] {
    return parseJsonl<SessionRecord>(readFileSync(this.existing(id), "utf8")).records;
  }

  /**
   * Append one record that is not part of the conversation (a title) without
   * the session lock: one O_APPEND write of a whole line, like the owner's, so
   * a session open in another process (`reasonix web`) can still be renamed.
   */
  appendDetached(id: string, r: SessionRecord): void {
    const fd = openSync(this.existing(id), "a+", 0o600);
    try {
      // A torn last line (a crash mid-write) must not swallow this record.
      const size = fstatSync(fd).size;
      const torn = size > 0 && readLastByte(fd, size) !== 0x0a;
      const buf = Buffer.from(`${torn ? "\n" : ""}${JSON.stringify(r)}\n`);
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** The log path of a session that exists (else session_not_found). */
  private existing(id: string): string {
    this.checkId(id);
    const p = this.logPath(id);
    if (!existsSync(p)) throw new ReasonixError("session_not_found", `no session "${id}" in ${this.dir}`, { hint: "list sessions with: reasonix sessions list", exitCode: 2 });
    return p;
  }

  open(id: string): SessionFile {
    this.existing(id);
    this.lock(id);
    return this.attach(id);
  }

  /** Open the log of a session whose lock we hold. */
  private attach(id: string): SessionFile {
    const { log, loaded } = AppendLog.open<SessionRecord>(this.logPath(id));
    return new SessionFile(id, log, loaded.records, this.blobDir(id), this.lockPath(id));
  }

  exists(id: string): boolean {
    return ID.test(id) && existsSync(this.logPath(id));
  }

  /** Read-only load (no lock), e.g. for `sessions show`. */
  load(id: string): SessionState {
    return replay(this.records(id));
  }

  /**
   * The sessions, newest first. Without `all`, only those worth resuming
   * (offeredForResume): a log created but never prompted is left out of every
   * listing — the chat's /resume, `sessions list`, serve's and ACP's lists, `-c`.
   */
  list(o: { all?: boolean } = {}): SessionSummary[] {
    if (!existsSync(this.dir)) return [];
    const out: SessionSummary[] = [];
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith(".jsonl")) continue;
      const id = f.slice(0, -6);
      try {
        const stat = statSync(this.logPath(id));
        const stamp = `${stat.size}:${stat.mtimeMs}`;
        const cached = this.summaries.get(id);
        if (cached && cached.stamp === stamp) {
          if (o.all || offeredForResume(cached.summary)) out.push(cached.summary);
          continue;
        }
        const st = this.load(id);
        const summary: SessionSummary = {
          id,
          workspace: st.meta.workspace,
          title: shownTitle(st),
          model: st.model,
          createdAt: st.meta.createdAt,
          updatedAt: stat.mtime.toISOString(),
          turns: st.turns.length,
          ...(st.parent ? { parent: st.parent } : {}),
          ...(st.forkedFrom ? { forkedFrom: st.forkedFrom } : {}),
        };
        this.summaries.set(id, { stamp, summary });
        if (o.all || offeredForResume(summary)) out.push(summary);
      } catch {
        // A log we cannot read is skipped from the list, never deleted.
      }
    }
    return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id.localeCompare(a.id));
  }

  delete(id: string): void {
    this.checkId(id);
    const p = this.logPath(id);
    if (!existsSync(p)) throw new ReasonixError("session_not_found", `no session "${id}"`, { hint: "list sessions with: reasonix sessions list", exitCode: 2 });
    const lp = this.lockPath(id);
    if (existsSync(lp)) {
      const owner = Number(readFileSync(lp, "utf8").trim());
      if (owner && owner !== process.pid && processAlive(owner)) throw new ReasonixError("session_busy", `session ${id} is in use by process ${owner}`);
      unlinkSync(lp);
    }
    unlinkSync(p);
    this.summaries.delete(id);
    const dir = join(this.dir, id);
    if (existsSync(dir) && lstatSync(dir).isDirectory()) rmSync(dir, { recursive: true, force: true });
  }
}
