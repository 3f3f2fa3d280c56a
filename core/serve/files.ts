// Workspace paths for the composer's @file mentions: a bounded walk that
// honours .gitignore, hidden files and the path policy (as glob does), cached
// for a few seconds, then ranked against what the user typed.
import { realpathSync } from "node:fs";
import { createPathPolicy } from "../policy/paths.ts";
import { walkFiles } from "../tools/walk.ts";

const MAX_ENTRIES = 50_000;
const MAX_FILES = 20_000;
const FRESH_MS = 10_000;

export class WorkspaceFiles {
  private list: string[] = [];
  private at = 0;

  constructor(private readonly workspace: () => string) {}

  private all(): string[] {
    if (Date.now() - this.at < FRESH_MS) return this.list;
    const out: string[] = [];
    try {
      const root = realpathSync(this.workspace());
      const policy = createPathPolicy({ cwd: root });
      for (const e of walkFiles(root, { hidden: false, gitignore: true, policy, maxEntries: MAX_ENTRIES })) {
        out.push(e.rel);
        if (out.length >= MAX_FILES) break;
      }
    } catch {
      // An unreadable workspace has nothing to mention.
    }
    this.list = out;
    this.at = Date.now();
    return out;
  }

  /** Up to `limit` paths matching `q`: name prefix first, then path substring, then in-order letters. */
  search(q: string, limit = 50): string[] {
    const needle = q.toLowerCase();
    const scored: { p: string; s: number }[] = [];
    for (const p of this.all()) {
      const l = p.toLowerCase();
      const base = l.slice(l.lastIndexOf("/") + 1);
      let s = -1;
      if (!needle) s = 3;
      else if (base.startsWith(needle)) s = 0;
      else if (l.startsWith(needle)) s = 1;
      else if (l.includes(needle)) s = 2;
      else if (subsequence(needle, l)) s = 4;
      if (s >= 0) scored.push({ p, s: s * 1000 + Math.min(p.length, 999) });
    }
    scored.sort((a, b) => a.s - b.s || a.p.localeCompare(b.p));
    return scored.slice(0, limit).map((x) => x.p);
  }
}

function subsequence(needle: string, hay: string): boolean {
  let i = 0;
  for (let j = 0; j < hay.length && i < needle.length; j++) if (hay[j] === needle[i]) i++;
  return i === needle.length;
}
