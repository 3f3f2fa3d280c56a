/**
 * A per-fact lock between processes: a file created with O_EXCL holding the
 * owner's pid. A lock whose owner is gone (killed mid-write) is taken over.
 * The lock only makes "read revision, compare, write" one step; the revision
 * check itself is what turns a lost race into a conflict.
 */
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ReasonixError } from "../errors.ts";
import { processAlive } from "../process/alive.ts";

const WAIT_MS = 5;
const MAX_WAITS = 600; // 3 s: a write holds the lock for a few milliseconds

function ownerAlive(path: string): boolean {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
    // Created but the pid not written yet: alive, unless it has stayed empty for long.
    if (text === "") return Date.now() - statSync(path).mtimeMs < 10_000;
  } catch {
    return true; // just released: look again
  }
  return processAlive(Number(text));
}

export function withFactLock<T>(locks: string, id: string, fn: () => T): T {
  mkdirSync(locks, { recursive: true, mode: 0o700 });
  const path = join(locks, `${id}.lock`);
  for (let i = 0; ; i++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      if (i >= MAX_WAITS) throw new ReasonixError("memory_busy", `fact ${id} is locked by another Reasonix process (${path})`, { hint: "try again; remove the lock file if no Reasonix process is running" });
      if (!ownerAlive(path)) {
        try {
          unlinkSync(path);
        } catch {}
        continue;
      }
      Bun.sleepSync(WAIT_MS);
    }
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(path);
    } catch {}
  }
}
