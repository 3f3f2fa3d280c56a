import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname, basename, join } from "node:path";

export interface AtomicWriteOptions {
  /** File mode for the new file (default 0o644). Secrets use 0o600. */
  mode?: number;
  /** Mode for parent directories created on the way (default 0o755). */
  dirMode?: number;
}

/**
 * Write a file so that readers see either the old or the new content, never a
 * torn one: write a sibling temp file, fsync, rename over the target.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: opts.dirMode ?? 0o755 });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", opts.mode ?? 0o644);
  try {
    const buf = typeof data === "string" ? Buffer.from(data) : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try { unlinkSync(tmp); } catch {}
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (e) {
    try { unlinkSync(tmp); } catch {}
    throw e;
  }
}
