/**
 * The list of source files under a directory, kept between calls with what
 * decides it: the mtime of every directory the walk listed (a file created,
 * deleted or renamed there changes it) and of every ignore file read on the
 * way (.gitignore, .ignore, .rgignore in those directories and their
 * ancestors, .git/info/exclude). When none of those changed and the path
 * policy is the same object, the walk's answer is the same, so it is not
 * walked again; a file's own edits are still seen by its stat in store.ts.
 */
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { PathPolicy } from "../policy/paths.ts";
import { walkFiles, type WalkEntry } from "../tools/walk.ts";
import { langFor } from "./grammars.ts";

const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"];
const RECENT_MS = 2000;

export interface SourceList {
  /** Source files, relative to the walked directory, in path order. */
  files: WalkEntry[];
  /** True when MAX stopped the walk. */
  capped: boolean;
}

interface Snapshot extends SourceList {
  policy: PathPolicy;
  /** path, mtimeMs (-1: absent), size. */
  stamps: [string, number, number][];
  /** False when something the walk read changed while it ran: walk again next time. */
  reusable: boolean;
}

const ABSENT = -1;
/** Stands for "exists" where only presence counts. */
const PRESENT = -2;

/** A path's mtime and size (ABSENT when missing); with PRESENCE only whether it exists. */
function stamp(path: string, presence = false): [string, number, number] {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return [path, ABSENT, 0];
  return presence ? [path, PRESENT, 0] : [path, st.mtimeMs, st.isDirectory() ? 0 : st.size];
}

function unchanged(stamps: [string, number, number][]): boolean {
  for (const [p, mtime, size] of stamps) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st || mtime === ABSENT) {
      if (!st !== (mtime === ABSENT)) return false;
    } else if (mtime !== PRESENT && (st.mtimeMs !== mtime || (!st.isDirectory() && st.size !== size))) return false;
  }
  return true;
}

export class WalkCache {
  private readonly snaps = new Map<string, Snapshot>();
  /** Walks answered from the cache / walked (for tests and the benchmark). */
  hits = 0;
  walks = 0;

  /** Source files under the directory DIR (a real path) that the walk admits, at most MAX. */
  sources(dir: string, policy: PathPolicy, max: number): SourceList {
    const old = this.snaps.get(dir);
    if (old && old.policy === policy && old.reusable && unchanged(old.stamps)) {
      this.hits++;
      return old;
    }
    this.walks++;
    // A directory or ignore file modified this recently makes the snapshot single-use: file
    // times come from a coarse clock (or a coarse filesystem), so a second change within
    // the same tick would leave the mtime we recorded as it was.
    const recent = Date.now() - RECENT_MS;
    const stamps: [string, number, number][] = [];
    // What the walk reads above DIR: where .git is (the repository top), its exclude file, ancestors' ignore files.
    for (let d = dir; ; d = dirname(d)) {
      stamps.push(stamp(join(d, ".git"), true), stamp(join(d, ".git", "info", "exclude")));
      if (d !== dir) stamps.push(...IGNORE_FILES.map((f) => stamp(join(d, f))));
      if (dirname(d) === d) break;
    }
    const files: WalkEntry[] = [];
    let capped = false;
    const onDir = (abs: string) => {
      stamps.push(stamp(abs)); // before it is listed: a change after this is seen next time
      for (const f of IGNORE_FILES) {
        const s = stamp(join(abs, f));
        if (s[1] !== -1) stamps.push(s); // a new ignore file changes the directory's mtime
      }
    };
    // node_modules is skipped even where no ignore file says so (a checkout without .git).
    for (const f of walkFiles(dir, { hidden: false, gitignore: true, policy, override: "!node_modules/", maxEntries: 1_000_000, onDir })) {
      if (!langFor(f.rel)) continue;
      if (files.length >= max) {
        capped = true;
        break;
      }
      files.push(f);
    }
    const reusable = !capped && stamps.every(([, mtime]) => mtime < recent);
    const snap: Snapshot = { files, capped, policy, stamps, reusable };
    this.snaps.delete(dir);
    this.snaps.set(dir, snap);
    while (this.snaps.size > 16) this.snaps.delete(this.snaps.keys().next().value!);
    return snap;
  }
}
