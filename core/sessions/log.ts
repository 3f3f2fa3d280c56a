import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
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

/**
 * An append-only JSONL file. Every append is one write of a whole line, so a
 * crash can only tear the line being written, and a killed process loses
 * nothing it appended. The fsync (durability across a power loss) is group
 * committed: records appended in one synchronous stretch (a turn's start and
 * its prompt, a reply and its usage) share one fsync, run as a microtask, so
 * before any code that awaits after the append goes on (a tool write after its
 * checkpoint, the next request). close() syncs what is pending first.
 */
export class AppendLog<T> {
  private fd: number | null;
  /** Appended but not yet fsynced. */
  private dirty = false;
  /** A failed group fsync, thrown by the next append (never swallowed). */
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
      queueMicrotask(() => {
        try {
          this.sync();
        } catch (e) {
          this.failed = e;
        }
      });
    }
  }

  /** fsync what was appended since the last sync (normally left to the microtask). */
  sync(): void {
    if (!this.dirty || this.fd === null) return;
    this.dirty = false;
    const t0 = traceStart();
    fsyncSync(this.fd);
    traceStep("log:fsync", t0);
  }

  close(): void {
    if (this.fd === null) return;
    try {
      this.sync();
    } finally {
      closeSync(this.fd);
      this.fd = null;
    }
  }
}
