import { randomBytes, createHash } from "node:crypto";
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { SessionSummary } from "../engine/types.ts";
import { ReasonixError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { AppendLog, parseJsonl } from "./log.ts";
import type { MetaRecord, SessionRecord } from "./records.ts";
import { replay, type SessionState } from "./replay.ts";

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,80}$/;

export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(3).toString("hex")}`;
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

  state(): SessionState {
    return replay(this.records);
  }

  /** Store file content by hash (written atomically before the record that names it). */
  putBlob(data: Uint8Array): string {
    const hash = createHash("sha256").update(data).digest("hex");
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

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Sessions under `$REASONIX_HOME/sessions/`: `<id>.jsonl` plus `<id>/blobs/`. */
export class SessionStore {
  /** Summaries by id, valid while the log's size and mtime are unchanged. */
  private readonly summaries = new Map<string, { stamp: string; summary: SessionSummary }>();
  constructor(readonly dir: string) {}

  private logPath = (id: string) => join(this.dir, `${id}.jsonl`);
  private lockPath = (id: string) => join(this.dir, `${id}.lock`);
  private blobDir = (id: string) => join(this.dir, id, "blobs");

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
        if (owner && pidAlive(owner)) {
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

  open(id: string): SessionFile {
    this.checkId(id);
    if (!existsSync(this.logPath(id))) throw new ReasonixError("session_not_found", `no session "${id}" in ${this.dir}`, { hint: "list sessions with: reasonix sessions list", exitCode: 2 });
    this.lock(id);
    const { log, loaded } = AppendLog.open<SessionRecord>(this.logPath(id));
    return new SessionFile(id, log, loaded.records, this.blobDir(id), this.lockPath(id));
  }

  exists(id: string): boolean {
    return ID.test(id) && existsSync(this.logPath(id));
  }

  /** Read-only load (no lock), e.g. for `sessions show`. */
  load(id: string): SessionState {
    this.checkId(id);
    const p = this.logPath(id);
    if (!existsSync(p)) throw new ReasonixError("session_not_found", `no session "${id}" in ${this.dir}`, { hint: "list sessions with: reasonix sessions list", exitCode: 2 });
    return replay(parseJsonl<SessionRecord>(readFileSync(p, "utf8")).records);
  }

  list(): SessionSummary[] {
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
          out.push(cached.summary);
          continue;
        }
        const st = this.load(id);
        const first = st.turns[0]?.prompt ?? "";
        const summary: SessionSummary = {
          id,
          workspace: st.meta.workspace,
          title: first.replace(/\s+/g, " ").trim().slice(0, 80),
          model: st.model,
          createdAt: st.meta.createdAt,
          updatedAt: stat.mtime.toISOString(),
          turns: st.turns.length,
        };
        this.summaries.set(id, { stamp, summary });
        out.push(summary);
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
      if (owner && owner !== process.pid && pidAlive(owner)) throw new ReasonixError("session_busy", `session ${id} is in use by process ${owner}`);
      unlinkSync(lp);
    }
    unlinkSync(p);
    this.summaries.delete(id);
    const dir = join(this.dir, id);
    if (existsSync(dir) && lstatSync(dir).isDirectory()) rmSync(dir, { recursive: true, force: true });
  }
}
