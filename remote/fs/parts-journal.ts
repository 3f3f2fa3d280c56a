/**
 * A journal of the temp (`.part`) files a transfer has created, so that no exit
 * path leaves one behind: a transfer records its temp file before writing it
 * and forgets it once the file is renamed into place or removed. When a process
 * dies before it could clean up (SIGKILL, the session killed under it), the
 * next connection to that host sweeps the entries whose owner is gone.
 *
 * One small 0600 file per entry under $REASONIX_HOME/remote/parts/HOST/, named
 * by pid, so concurrent transfers never rewrite each other's records and a
 * sweep never touches a temp file a live transfer is still writing.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { writeFileAtomic } from "../../core/fs/atomic.ts";
import { homePaths } from "../../core/home.ts";

export interface PartEntry {
  pid: number;
  /** The host the transfer was with (the directory says it too; this survives a copy). */
  host?: string;
  /** Where the temp file lives: on the remote host or on this machine. */
  side: "remote" | "local";
  /** Absolute: a sweep may run from any working directory (local) or session (remote). */
  path: string;
}

const dirFor = (host: string) => join(homePaths().remote, "parts", host.replace(/[^A-Za-z0-9._-]/g, "_"));

const alive = (pid: number): boolean => {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Record a temp file; returns the function that forgets it again. */
export function recordPart(host: string, side: PartEntry["side"], path: string): () => void {
  const dir = dirFor(host);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${process.pid}-${randomBytes(4).toString("hex")}.json`);
  const abs = side === "local" ? resolve(path) : path;
  writeFileAtomic(file, JSON.stringify({ pid: process.pid, host, side, path: abs } satisfies PartEntry), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/** Entries left by processes that no longer run (their temp files are orphans). */
export function orphanedParts(host: string): { entry: PartEntry; forget: () => void }[] {
  const dir = dirFor(host);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  const out: { entry: PartEntry; forget: () => void }[] = [];
  for (const n of names) {
    const file = join(dir, n);
    let entry: PartEntry;
    try {
      entry = JSON.parse(readFileSync(file, "utf8")) as PartEntry;
    } catch {
      continue; // being written right now (atomic rename pending) or foreign: leave it
    }
    if (typeof entry.pid !== "number" || alive(entry.pid)) continue;
    out.push({ entry, forget: () => rmSync(file, { force: true }) });
  }
  return out;
}

/**
 * Remove the orphaned temp files of `host`: local ones here, remote ones with
 * `unlinkRemote` (which must treat "no such file" as done). Best effort: an entry
 * whose removal fails stays for the next sweep.
 */
export async function sweepParts(host: string, unlinkRemote: (path: string) => Promise<void>): Promise<number> {
  let swept = 0;
  for (const { entry, forget } of orphanedParts(host)) {
    // Only ever our own temp names: a corrupted entry must not delete a real file.
    // A relative path (a record from an older version) names a file in a directory nobody
    // remembers: removing it here could hit another file of that name; drop the record.
    if (!/\.rx-[0-9a-f]{8}\.part$/.test(entry.path) || !isAbsolute(entry.path)) {
      forget();
      continue;
    }
    try {
      if (entry.side === "local") rmSync(entry.path, { recursive: true, force: true });
      else await unlinkRemote(entry.path);
      forget();
      swept++;
    } catch {}
  }
  return swept;
}
