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
const STALE_BREAKER_MS = 10_000;

function ownerAlive(path: string): boolean {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
    // Created but the pid not written yet: alive, unless it has stayed empty for long.
    if (text === "") return Date.now() - statSync(path).mtimeMs < STALE_BREAKER_MS;
  } catch {
    return true; // just released: look again
  }
  return processAlive(Number(text));
}

/** Create `path` holding our pid; false when it exists. */
function tryCreate(path: string): boolean {
  try {
    const fd = openSync(path, "wx", 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    return false;
  }
}

/**
 * Remove a dead owner's lock. Only the holder of the breaker file judges and
 * removes it, so two waiters can never both remove a lock (the second would
 * remove the first one's fresh lock): once judged dead, the lock file can
 * change only through the breaker's holder.
 */
function breakStale(path: string): boolean {
  const breaker = `${path}.break`;
  if (!tryCreate(breaker)) {
    // Someone else is breaking it; a breaker left behind by a killed process goes after a while.
    try {
      if (Date.now() - statSync(breaker).mtimeMs > STALE_BREAKER_MS) unlinkSync(breaker);
    } catch {}
    return false;
  }
  try {
    if (ownerAlive(path)) return false;
    unlinkSync(path);
    return true;
  } catch {
    return true; // released meanwhile: nothing left to break
  } finally {
    try {
      unlinkSync(breaker);
    } catch {}
  }
}

export function withFactLock<T>(locks: string, id: string, fn: () => T): T {
  mkdirSync(locks, { recursive: true, mode: 0o700 });
  const path = join(locks, `${id}.lock`);
  for (let i = 0; !tryCreate(path); i++) {
    if (i >= MAX_WAITS) throw new ReasonixError("memory_busy", `fact ${id} is locked by another Reasonix process (${path})`, { hint: "try again; remove the lock file if no Reasonix process is running" });
    if (ownerAlive(path) || !breakStale(path)) Bun.sleepSync(WAIT_MS);
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(path);
    } catch {}
  }
}
