import { closeSync, existsSync, fdatasync, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { traceStart, traceStep } from "../trace.ts";

export interface LoadedLog<T> {
  records: T[];
  /** A torn last line (crash mid-write) that was dropped. */
  tornTail: boolean;
  /** Lines that were not valid JSON before the last one (kept count for warnings). */
  badLines: number;
}

/** Parse a JSONL log. A torn last line is dropped, never fatal. */
export function parseJsonl<T>(text: string): LoadedLog<T> {
  const records: T[] = [];
  let badLines = 0;
  let tornTail = false;
  let start = 0;
  const n = text.length;
  while (start < n) {
    let end = text.indexOf("\n", start);
    const last = end < 0;
    if (last) end = n;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === "") continue;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      if (last) tornTail = true;
      else badLines++;
    }
  }
  return { records, tornTail, badLines };
}

/** The disk call behind a group sync (a test seam: tests wrap it to hold or observe syncs). */
export const logDisk = { fdatasync };

/**
 * An append-only JSONL file. Every append is one write of a whole line, so a
 * crash can only tear the line being written, and a killed process loses
 * nothing it appended (the bytes are in the kernel at once). Durability across
 * a power loss is group committed and runs beside the caller: records appended
 * in one synchronous stretch (a turn's start and its prompt, a reply and its
 * usage) share one fdatasync, started as a microtask on the thread pool, so a
 * model request can leave while it is in flight. Code that must not act before
 * the records are on disk (a tool about to change something, the end of a turn
 * being reported, a file write after its checkpoint) awaits flushed().
 * close() syncs what is pending first. docs/how-fast.md ("Durability").
 */
export class AppendLog<T> {
  private fd: number | null;
  /** Appended but no fdatasync started for it yet. */
  private dirty = false;
  /** The group sync running on the thread pool, if any. */
  private running: Promise<void> | null = null;
  /** The one sync queued behind it: it covers everything appended until it starts. */
  private queued: Promise<void> | null = null;
  /** A failed group sync, thrown by the next append and by flushed() (never swallowed). */
  private failed: unknown;
  private constructor(readonly path: string, fd: number) {
    this.fd = fd;
  }

  static create<T>(path: string): AppendLog<T> {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // O_APPEND like open(): a title appended by another process (title.ts) is never overwritten.
    return new AppendLog<T>(path, openSync(path, "ax", 0o600));
  }

  /** Open for appending and load what is there, cutting a torn tail first. */
  static open<T>(path: string): { log: AppendLog<T>; loaded: LoadedLog<T> } {
    const text = existsSync(path) ? readFileSync(path, "utf8") : "";
    const loaded = parseJsonl<T>(text);
    if (text.length > 0 && !text.endsWith("\n")) {
      const fd = openSync(path, "r+");
      if (loaded.tornTail) {
        // Drop the torn bytes so the next append starts a fresh line.
        ftruncateSync(fd, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
      } else {
        // A whole record whose newline never landed: keep it, finish the line.
        writeSync(fd, "\n", fstatSync(fd).size);
      }
      fsyncSync(fd);
      closeSync(fd);
    }
    return { log: new AppendLog<T>(path, openSync(path, "a", 0o600)), loaded };
  }

  append(record: T): void {
    if (this.fd === null) throw new Error(`session log ${this.path} is closed`);
    if (this.failed !== undefined) throw this.failed;
    const buf = Buffer.from(`${JSON.stringify(record)}\n`);
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    if (!this.dirty) {
      this.dirty = true;
      queueMicrotask(() => void this.startSync().catch(() => {}));
    }
  }

  /**
   * Resolves once everything appended so far is on disk (rejects if that sync
   * failed). Cheap when nothing is pending.
   */
  flushed(): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    return this.startSync();
  }

  /**
   * A promise for everything appended so far being on disk. At most one sync
   * runs and one waits behind it; appends made meanwhile join the waiting one.
   */
  private startSync(): Promise<void> {
    if (!this.dirty) return this.queued ?? this.running ?? Promise.resolve();
    if (this.queued) return this.queued;
    if (this.running) {
      const next = () => ((this.queued = null), this.runOne());
      return (this.queued = this.running.then(next, next));
    }
    return this.runOne();
  }

  private runOne(): Promise<void> {
    const fd = this.fd;
    if (!this.dirty || fd === null) return Promise.resolve();
    this.dirty = false;
    const t0 = traceStart();
    const p = new Promise<void>((resolve, reject) => {
      // fdatasync: the file's size (what a reader needs) is flushed with the data; timestamps need not be.
      logDisk.fdatasync(fd, (e) => {
        traceStep("log:fsync", t0);
        if (this.running === p) this.running = null;
        if (e && this.fd !== null) {
          this.failed = e;
          reject(e);
        } else resolve();
      });
    });
    this.running = p;
    return p;
  }

  /** fsync what was appended and not yet synced, blocking (close, and callers that cannot await). */
  sync(): void {
    if (this.fd === null) return;
    if (this.failed !== undefined) throw this.failed;
    if (!this.dirty) return;
    this.dirty = false;
    const t0 = traceStart();
    fdatasyncSync(this.fd);
    traceStep("log:fsync", t0);
  }

  close(): void {
    const fd = this.fd;
    if (fd === null) return;
    const inFlight = this.queued ?? this.running;
    try {
      // Also covers what a group sync still in flight was syncing.
      this.dirty = this.dirty || inFlight !== null;
      this.sync();
    } finally {
      this.fd = null;
      // Never close the descriptor under a group sync still running on the thread pool.
      if (!inFlight) closeSync(fd);
      else void inFlight.then(() => closeSync(fd), () => closeSync(fd));
    }
  }
}
