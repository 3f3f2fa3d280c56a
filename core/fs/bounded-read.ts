/**
 * Reading files a repository ships (project inputs: reasonix.toml,
 * .mcp.json, everything under .reasonix/ and .agents/skills/) without letting
 * the file decide how long the read takes or how much memory it needs. A FIFO
 * blocks a plain read until a writer comes (forever); /dev/zero never ends.
 * So a file is opened non-blocking (opening a FIFO returns at once), judged
 * by fstat on that very descriptor (no swap between check and read), refused
 * unless it is a regular file (a symlink to one counts), and read only up to
 * a limit.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** Files Reasonix parses from a project (reasonix.toml, .mcp.json, .reasonix/hooks.toml). */
export const MAX_PROJECT_INPUT_BYTES = 1024 * 1024;
/** Any other project input, hashed for trust in chunks (never held in memory whole). */
export const MAX_HASHED_INPUT_BYTES = 64 * 1024 * 1024;

/** A file refused before it was read; `reason` reads after the path ("is a FIFO …"). */
export class InputRefused extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = "InputRefused";
  }
}

export const humanLimit = (n: number): string => (n % (1024 * 1024) === 0 ? `${n / 1024 / 1024} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`);

function notRegular(st: Stats): string {
  if (st.isDirectory()) return "is a directory, not a file";
  const kind = st.isFIFO() ? "a FIFO (named pipe)" : st.isCharacterDevice() ? "a character device" : st.isBlockDevice() ? "a block device" : st.isSocket() ? "a socket" : "a special file";
  return `is ${kind}, not a regular file`;
}

const tooBig = (size: number, max: number, what: string) => `is ${size} bytes, over the ${humanLimit(max)} limit of ${what}`;

/**
 * Open `path` for a bounded read: the descriptor and its stat, or an
 * InputRefused naming why not. Errors from open itself (ENOENT, EACCES) are
 * thrown as they are, except a socket (ENXIO), which is refused by name.
 */
function openRegular(path: string, max: number, what: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENXIO") throw new InputRefused(path, "is a socket, not a regular file");
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InputRefused(path, notRegular(st));
    if (st.size > max) throw new InputRefused(path, tooBig(st.size, max, what));
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** Feed the file to `sink` chunk by chunk; past `max` bytes (even if it grows while being read) refused, or with `cut` the first `max` bytes kept. */
function readChunks(path: string, max: number, what: string, sink: (chunk: Buffer) => void, cut = false): { bytes: number; truncated: boolean } {
  const { fd } = openRegular(path, cut ? Infinity : max, what);
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) return { bytes: total, truncated: false };
      if (total + n > max) {
        if (!cut) throw new InputRefused(path, tooBig(total + n, max, what));
        sink(buf.subarray(0, max - total));
        return { bytes: max, truncated: true };
      }
      total += n;
      sink(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/** The bytes of a regular file of at most `max` bytes; InputRefused otherwise (see the module comment). */
export function readRegularFile(path: string, max = MAX_PROJECT_INPUT_BYTES, what = "a project input"): Buffer {
  const parts: Buffer[] = [];
  readChunks(path, max, what, (c) => parts.push(Buffer.from(c)));
  return Buffer.concat(parts);
}

/** SHA-256 and size of a regular file of at most `max` bytes, read in chunks; InputRefused otherwise. */
export function hashRegularFile(path: string, max: number, prefix?: Uint8Array, what = "a project input"): { sha256: string; bytes: number } {
  const h = new Bun.CryptoHasher("sha256");
  if (prefix) h.update(prefix);
  const { bytes } = readChunks(path, max, what, (c) => h.update(c));
  return { sha256: h.digest("hex"), bytes };
}

/** The first `max` bytes of a regular file, and whether there was more; InputRefused for anything but a regular file. */
export function readRegularHead(path: string, max: number): { data: Buffer; truncated: boolean } {
  const parts: Buffer[] = [];
  const { truncated } = readChunks(path, max, "", (c) => parts.push(Buffer.from(c)), true);
  return { data: Buffer.concat(parts), truncated };
}
