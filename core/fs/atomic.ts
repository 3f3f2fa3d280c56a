import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname, basename, join } from "node:path";
import { randomHex } from "../random.ts";

export interface AtomicWriteOptions {
  /** File mode for the new file (default 0o644). Secrets use 0o600. */
  mode?: number;
  /** Mode for parent directories created on the way (default 0o755). */
  dirMode?: number;
}

/** An atomic write begun: its temp file exists; `commit` fills it and renames it over the target, `abort` removes it. */
export interface AtomicWrite {
  /** The temp file's creation time by the file system's own clock (ms): anything it stamps later is not older. */
  readonly startedMs: number;
  commit(data: string | Uint8Array): void;
  abort(): void;
}

/**
 * Create the temp file of an atomic write now and fill it later: the caller
 * learns the file system's time before it looks at what it will write (a
 * cache of file stamps needs that to tell a stamp it can trust from one that
 * may still change within the same clock tick).
 */
export function beginAtomicWrite(path: string, opts: AtomicWriteOptions = {}): AtomicWrite {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: opts.dirMode ?? 0o755 });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomHex(4)}.tmp`);
  const fd = openSync(tmp, "wx", opts.mode ?? 0o644);
  let open = true;
  let renamed = false;
  const drop = () => {
    if (open) closeSync(fd);
    open = false;
    if (!renamed) try { unlinkSync(tmp); } catch {}
  };
  let startedMs: number;
  try {
    startedMs = fstatSync(fd).mtimeMs;
  } catch (e) {
    drop();
    throw e;
  }
  return {
    startedMs,
    commit(data) {
      try {
        const buf = typeof data === "string" ? Buffer.from(data) : data;
        let off = 0;
        while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
        fsyncSync(fd);
        closeSync(fd);
        open = false;
        renameSync(tmp, path);
        renamed = true;
      } catch (e) {
        drop();
        throw e;
      }
    },
    /** Remove the temp file (nothing after a commit). */
    abort: drop,
  };
}

/**
 * Write a file so that readers see either the old or the new content, never a
 * torn one: write a sibling temp file, fsync, rename over the target.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  beginAtomicWrite(path, opts).commit(data);
}
