/**
 * Directory walk for glob and the grep fallback, with ripgrep's defaults:
 * symlinks are not followed, `.git` is skipped, hidden entries are skipped
 * unless asked for, ignore files are honoured. Paths hidden by the path
 * policy (forbid_read, Reasonix state) are pruned before they are entered.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { isProcessState, isWithin, type PathPolicy } from "../policy/paths.ts";
import { compileOverride, IgnoreStack } from "./gitignore.ts";

export interface WalkOptions {
  hidden: boolean;
  gitignore: boolean;
  policy: PathPolicy;
  /** ripgrep-style `-g` glob: whitelists past hidden/ignore rules, `!glob` excludes. */
  override?: string;
  /** Stop after visiting this many directory entries (a guard against huge trees). */
  maxEntries?: number;
  /** Called with each directory's absolute path just before it is listed (code_index records their mtimes). */
  onDir?: (abs: string) => void;
}

export interface WalkEntry {
  /** Path relative to the walk root, `/`-separated. */
  rel: string;
  abs: string;
}

/** True when the policy hides ABS (already a real path: the walk never follows links). */
export const hiddenByPolicy = (abs: string, policy: PathPolicy): boolean =>
  policy.forbidRead.some((f) => isWithin(abs, f)) || isProcessState(abs);

/** Regular files under rootAbs (a real directory path), in sorted order. */
export function* walkFiles(rootAbs: string, opts: WalkOptions): Generator<WalkEntry> {
  const budget = { left: opts.maxEntries ?? 200_000 };
  const override = opts.override ? compileOverride(opts.override) : null;
  yield* walkDir(rootAbs, "", IgnoreStack.forRoot(rootAbs, { gitignore: opts.gitignore }), opts, override, budget);
}

function* walkDir(
  abs: string,
  rel: string,
  ignore: IgnoreStack,
  opts: WalkOptions,
  override: ReturnType<typeof compileOverride> | null,
  budget: { left: number },
): Generator<WalkEntry> {
  let entries;
  opts.onDir?.(abs);
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch {
    return; // unreadable directories are skipped, as ripgrep does (it only warns)
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (--budget.left < 0) return;
    if (e.name === ".git") continue;
    if (e.isSymbolicLink()) continue;
    const isDir = e.isDirectory();
    if (!isDir && !e.isFile()) continue;
    const childAbs = join(abs, e.name);
    const childRel = rel === "" ? e.name : `${rel}/${e.name}`;
    if (hiddenByPolicy(childAbs, opts.policy)) continue;
    // Same precedence as ripgrep: override glob, then hidden, then ignore files.
    const verdict = override?.test(childRel, isDir) ?? null;
    if (verdict === "ignore") continue;
    if (verdict !== "whitelist") {
      if (!isDir && override?.hasWhitelist) continue;
      if (!opts.hidden && e.name.startsWith(".")) continue;
      if (ignore.ignored(childRel, isDir)) continue;
    }
    if (isDir) yield* walkDir(childAbs, childRel, ignore.descend(childAbs, childRel), opts, override, budget);
    else yield { rel: childRel, abs: childAbs };
  }
}
