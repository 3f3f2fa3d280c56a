/**
 * Git state that makes the *host's* git run code: hooks, the config files
 * (core.fsmonitor, core.hooksPath, filters, …), and the pointer files that
 * tell git where its config lives (`commondir`, `gitdir`, a `.git` file).
 * Writing any of them from inside the sandbox would run code the next time
 * the user types `git status`, outside every sandbox.
 *
 * Two ways in, one for each layer:
 * - `gitStateReason(path)` matches a path by its names (any `.git/config`,
 *   `.git/hooks/…`, `.git/commondir`, a new `.git` entry, …) wherever it is,
 *   so the file tools refuse it in repositories nobody scanned yet;
 * - `scanRepos(roots)` walks the writable roots (bounded) for `.git` entries
 *   so the OS sandbox can mount the existing state read-only and guard the
 *   missing pieces; `diffRepos` finds `.git` entries a command created.
 */
import { spawnSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { HOST_GIT_ARGS, hostGitEnv } from "./git-host.ts";

/** Inside any git dir: names that stay read-only (a directory protects everything below it). */
export const GIT_DIR_PROTECTED: readonly string[] = ["hooks", "config", "config.worktree", "commondir", "gitdir"];
/** Inside `<gitdir>/worktrees/<name>/`: the files naming where that worktree's config and common dir are. */
const WORKTREE_PROTECTED = new Set(["commondir", "gitdir", "config", "config.worktree"]);

/** Bounds of the nested-repository scan (see docs/sandbox.md). */
export const SCAN_MAX_DEPTH = 5;
export const SCAN_MAX_DIRS = 3_000;
/** Directories never descended into: dependency trees that are large and never hold the user's repositories. */
export const SCAN_SKIP = new Set(["node_modules", ".git"]);

/**
 * Why writing `path` would change git state that runs code, or null. Matches
 * on names only, so it works for paths that do not exist yet and for
 * repositories created after any scan.
 */
export function gitStateReason(path: string): string | null {
  // Folded the way case-insensitive filesystems (macOS, Windows) match names,
  // where `.GIT/Config` or `.git./config` is `.git/config`; on Linux this only
  // refuses a few odd names more.
  const parts = path.split(/[\\/]+/).filter((c) => c !== "").map(foldName);
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] !== ".git") continue;
    const rest = parts.slice(i + 1);
    if (rest.length === 0) return "a `.git` entry (a repository or a pointer to one) cannot be created or replaced";
    const r = gitDirRestReason(rest);
    if (r) return r;
  }
  return null;
}

const foldName = (c: string): string => c.toLowerCase().replace(/[. ]+$/, (m) => (m.length === c.length ? m : ""));

/** `rest` is a path below a git dir. */
function gitDirRestReason(rest: string[]): string | null {
  const [first] = rest;
  if (first === "hooks") return "git hooks run on the host";
  if (rest.length === 1 && GIT_DIR_PROTECTED.includes(first!)) return `git reads .git/${first} to decide what to run`;
  if (first === "worktrees" && rest.length === 3 && WORKTREE_PROTECTED.has(rest[2]!)) return `a worktree's ${rest[2]} points git at a config`;
  if (first === "worktrees" && rest.length === 2) return "a worktree's git dir cannot be replaced";
  if (first === "modules") {
    // Submodule names may contain slashes and nest: modules/a/b/modules/c/…
    for (let j = 2; j < rest.length; j++) {
      const c = rest[j]!;
      if (c === "hooks") return "a submodule's git hooks run on the host";
      if (j === rest.length - 1 && GIT_DIR_PROTECTED.includes(c)) return `a submodule's ${c} decides what git runs`;
    }
  }
  return null;
}

export interface FoundRepo {
  /** The `.git` entry itself (directory, file or link), unresolved; for a bare repository, its directory. */
  dotGit: string;
  kind: "dir" | "file" | "link";
  /** The git dir it leads to (resolved), when it can be read. */
  gitDir?: string;
}

export interface RepoScan {
  repos: FoundRepo[];
  /** True when a bound stopped the walk (deeper repositories were not seen). */
  truncated: boolean;
  dirsVisited: number;
}

function lkind(p: string): "dir" | "file" | "link" | undefined {
  try {
    const st = lstatSync(p);
    return st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

/** Where a `.git` entry leads: itself (dir), its link target, or the `gitdir:` line of a file. */
function gitDirOf(dotGit: string, kind: FoundRepo["kind"], real: (p: string) => string): string | undefined {
  if (kind !== "file") return real(dotGit);
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8").slice(0, 4096));
    if (!m) return undefined;
    return real(isAbsolute(m[1]!) ? m[1]! : resolve(dirname(dotGit), m[1]!));
  } catch {
    return undefined;
  }
}

/**
 * Every `.git` entry (and bare repository) under the roots, breadth first, at most SCAN_MAX_DEPTH
 * levels below a root and SCAN_MAX_DIRS directories in all. Symbolic links
 * to directories are not followed; `node_modules` and git dirs are skipped.
 */
export function scanRepos(roots: readonly string[], real: (p: string) => string, bounds = { maxDepth: SCAN_MAX_DEPTH, maxDirs: SCAN_MAX_DIRS }): RepoScan {
  const repos: FoundRepo[] = [];
  const seen = new Set<string>();
  let visited = 0;
  let truncated = false;
  const queue: [string, number][] = roots.map((r) => [r, 0]);
  for (let qi = 0; qi < queue.length; qi++) {
    const [dir, depth] = queue[qi]!;
    if (visited >= bounds.maxDirs) {
      truncated = true;
      break;
    }
    visited++;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    // A bare repository (HEAD, objects/, refs/) is a git dir under another
    // name: protect it like one, and do not walk its object store.
    const byName = new Map(entries.map((e) => [e.name, e]));
    if (byName.get("HEAD")?.isFile() && byName.get("objects")?.isDirectory() && byName.get("refs")?.isDirectory()) {
      if (!seen.has(dir)) (seen.add(dir), repos.push({ dotGit: dir, kind: "dir", gitDir: real(dir) }));
      continue;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.name === ".git") {
        if (seen.has(p)) continue;
        seen.add(p);
        const kind = e.isSymbolicLink() ? "link" : e.isDirectory() ? "dir" : "file";
        repos.push({ dotGit: p, kind, gitDir: gitDirOf(p, kind, real) });
        continue;
      }
      if (!e.isDirectory() || SCAN_SKIP.has(e.name)) continue;
      if (depth + 1 > bounds.maxDepth) {
        truncated = true;
        continue;
      }
      queue.push([p, depth + 1]);
    }
  }
  return { repos, truncated, dirsVisited: visited };
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The protected entries of one git dir: `existing` (to mount read-only) and
 * `missing` (to guard after a command). Recurses into `modules/` (submodule
 * git dirs, nested) and `worktrees/` (linked worktrees' git dirs).
 */
export function gitDirState(gitDir: string, depth = 0): { existing: string[]; missing: string[] } {
  const existing: string[] = [];
  const missing: string[] = [];
  if (depth > 8 || !isDir(gitDir)) return { existing, missing };
  for (const name of GIT_DIR_PROTECTED) {
    const p = join(gitDir, name);
    (lkind(p) ? existing : missing).push(p);
  }
  const worktrees = join(gitDir, "worktrees");
  if (isDir(worktrees)) {
    for (const name of readdirSync(worktrees)) {
      const wt = join(worktrees, name);
      if (!isDir(wt)) continue;
      for (const leaf of WORKTREE_PROTECTED) {
        const p = join(wt, leaf);
        (lkind(p) ? existing : missing).push(p);
      }
    }
  }
  const visitModules = (dir: string, d: number) => {
    if (d > 8 || !isDir(dir)) return;
    for (const name of readdirSync(dir)) {
      const sub = join(dir, name);
      if (!isDir(sub)) continue;
      if (lkind(join(sub, "HEAD")) === "file") {
        const s = gitDirState(sub, depth + 1);
        existing.push(...s.existing);
        missing.push(...s.missing);
      } else visitModules(sub, d + 1);
    }
  };
  visitModules(join(gitDir, "modules"), 0);
  return { existing, missing };
}

/** The `.git` entry at `dotGit`, when there is one. */
export function foundAt(dotGit: string, real: (p: string) => string): FoundRepo | undefined {
  const kind = lkind(dotGit);
  return kind ? { dotGit, kind, gitDir: gitDirOf(dotGit, kind, real) } : undefined;
}

/**
 * Whether a repository's pointer or git state was written at or after
 * `sinceMs` (inode change time): a `.git` file or link, or the config, hooks
 * and pointer files of its git dir. Used for repositories outside the scan's
 * bound, where no before-and-after listing exists.
 */
export function stateChangedSince(repo: FoundRepo, sinceMs: number): boolean {
  const changed = (p: string) => {
    try {
      return lstatSync(p).ctimeMs >= sinceMs;
    } catch {
      return false;
    }
  };
  if (repo.kind !== "dir" && changed(repo.dotGit)) return true;
  if (!repo.gitDir) return false;
  for (const name of GIT_DIR_PROTECTED) {
    const p = join(repo.gitDir, name);
    if (changed(p)) return true;
    if (name === "hooks" && isDir(p)) for (const h of readdirSync(p)) if (changed(join(p, h))) return true;
  }
  return false;
}

/** `.git` entries present after a command that were not there before, or that now lead elsewhere. */
export function diffRepos(before: RepoScan, after: RepoScan): FoundRepo[] {
  const old = new Map(before.repos.map((r) => [r.dotGit, r]));
  return after.repos.filter((r) => {
    const o = old.get(r.dotGit);
    return !o || o.kind !== r.kind || o.gitDir !== r.gitDir;
  });
}

export interface GitProtection {
  /** Protected git state that exists now, each with the write root it is in. */
  existing: { path: string; root: string }[];
  /** Protected git state that does not exist yet (guarded after a command). */
  missing: { path: string; root: string }[];
  /** `.git` files (worktree/submodule pointers): protected themselves. */
  pointers: { path: string; root: string }[];
  scan: RepoScan;
}

/**
 * The git state to protect in every repository under the write roots: the
 * roots' own `.git` (even when it does not exist yet) and every nested one
 * the bounded scan finds, plus `extra` (repositories known from elsewhere:
 * the planted-state watch, at any depth). Git dirs outside every root are
 * skipped: the sandbox cannot write there anyway.
 */
export function gitProtection(writeRoots: readonly string[], real: (p: string) => string, extra: readonly FoundRepo[] = [], opts: { scan?: boolean } = {}): GitProtection {
  // scan: false when `extra` already holds every repository under the roots (a complete planted-state watch).
  const scan = opts.scan === false ? { repos: [], truncated: false, dirsVisited: 0 } : scanRepos(writeRoots, real);
  const out: GitProtection = { existing: [], missing: [], pointers: [], scan };
  const seen = new Set<string>();
  const rootOf = (p: string) => writeRoots.find((r) => isWithinDir(p, r));
  const add = (list: { path: string; root: string }[], p: string) => {
    const root = rootOf(p);
    if (root === undefined || seen.has(p)) return;
    seen.add(p);
    list.push({ path: p, root });
  };
  const addGitDir = (gitDir: string) => {
    const st = gitDirState(gitDir);
    if (st.existing.length === 0 && st.missing.length === 0) {
      // Not a directory (yet): every protected name is missing.
      for (const n of GIT_DIR_PROTECTED) add(out.missing, join(gitDir, n));
      return;
    }
    for (const p of st.existing) add(out.existing, p);
    for (const p of st.missing) add(out.missing, p);
  };
  for (const root of writeRoots) if (lkind(join(root, ".git")) === undefined) addGitDir(real(join(root, ".git")));
  for (const repo of [...scan.repos, ...extra]) {
    if (repo.kind === "file") add(out.pointers, repo.dotGit);
    if (repo.gitDir) addGitDir(repo.gitDir);
  }
  return out;
}

/** Identity of a repository's index file (changes when a command stages anything). */
export function indexStamp(gitDir: string): string {
  try {
    const st = statSync(join(gitDir, "index"));
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return "none";
  }
}

/** The work tree a found `.git` entry belongs to. */
export const workTreeOf = (repo: FoundRepo): string => dirname(repo.dotGit);

/**
 * Paths of the gitlinks (submodule entries, mode 160000) in a repository's
 * index, read by the host's git. Git recurses into them on a plain
 * `git status`, wherever they are, so a repository a command planted and
 * staged deeper than the scan bound (or in node_modules) is found this way.
 * Git reads only the repository's own protected config here. Null when git
 * is not installed or cannot read the index.
 */
export function gitlinks(workTree: string, gitDir?: string, timeoutMs = 5000): string[] | null {
  // Discovery bounded to this work tree (its git dir named, the ceiling at its parent), every executing setting neutral.
  const env = hostGitEnv(process.env, { ceiling: dirname(workTree) });
  if (gitDir) Object.assign(env, { GIT_DIR: gitDir, GIT_WORK_TREE: workTree });
  let r;
  try {
    r = spawnSync("git", [...HOST_GIT_ARGS, "ls-files", "--stage", "-z"], { cwd: workTree, env, timeout: timeoutMs, maxBuffer: 64 << 20 });
  } catch {
    return null;
  }
  if (r.status !== 0 || !r.stdout) return null;
  const out: string[] = [];
  for (const rec of r.stdout.toString("utf8").split("\0")) {
    if (!rec.startsWith("160000 ")) continue;
    const tab = rec.indexOf("\t");
    if (tab > 0) out.push(join(workTree, rec.slice(tab + 1)));
  }
  return out;
}

export const isWithinDir = (p: string, root: string): boolean => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
