/**
 * Git state found by git's own discovery rules, at any depth (node_modules
 * included), cheaply enough to run around every command.
 *
 * Git takes a directory for a repository when it holds a `.git` entry (a
 * directory, a `gitdir:` file or a link), or when the directory itself looks
 * like a git dir: a `HEAD` plus `objects/` and `refs/` (links followed) or a
 * `commondir`. Its config then decides what `git status` runs.
 *
 *   const w = watchGitState(roots, { budgetMs })  // one full walk: every dir's mtime, every repository
 *   const fresh = gitStateChanges(w, since)       // after a command: git state written since it started
 *
 * After the first walk only directories whose mtime moved are read again
 * (creating, removing or renaming an entry moves its directory's mtime), and
 * every known repository's protected names are looked up (lstat): a stat per
 * directory and a few per repository, no rewalk. Git dirs themselves are not
 * walked (objects and refs are large and never hold a work tree). What
 * appeared is the command's when its inode change time (which no unprivileged
 * process can set back) is at or after the command's start, or when it lies
 * in a directory that was created or moved in during the command; older
 * changes are the user's own between commands, and become known.
 */
import { lstatSync, readdirSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { GIT_DIR_PROTECTED } from "./git.ts";

/** Names in a git dir whose appearance makes git run code or look elsewhere (moved aside when planted). */
export const GIT_STATE_NAMES: readonly string[] = [...GIT_DIR_PROTECTED, "worktrees", "modules"];

export type GitEntryKind = "dir" | "file" | "link" | "bare";

export interface GitEntry {
  /** The `.git` entry, or for a bare layout the directory itself. */
  path: string;
  kind: GitEntryKind;
}

/** A repository that is new, or known with git state that is new (`names`: those pieces only). */
export interface GitChange extends GitEntry {
  names?: string[];
}

interface RepoRecord {
  kind: GitEntryKind;
  /** For dir/bare: protected name → identity (ino:ctime); for file/link: the entry's own identity under "". */
  state: Map<string, string>;
}

export interface GitWatch {
  roots: string[];
  /** Every directory walked (git dirs excepted) → its mtime. */
  dirs: Map<string, number>;
  repos: Map<string, RepoRecord>;
  /** False when the first walk ran out of its budget: directories beyond it are not watched. */
  complete: boolean;
  dirsWalked: number;
  /** Commands running against this watch (a refresh then would take their changes as known). */
  active: number;
}

const lst = (p: string): Stats | undefined => {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
};
const isDirFollowed = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
/** What a git dir keeps below it: never a work tree, often large (objects). */
const GIT_INTERNAL = new Set(["objects", "refs", "logs", "hooks", "info", "worktrees", "modules", "lfs", "branches", "rr-cache"]);
const ident = (s: Stats) => `${s.ino}:${s.ctimeMs}`;

/**
 * Does git take `dir` for a git dir? A `HEAD` that is not a directory, and
 * `objects` and `refs` directories (links followed, as git follows them) or a
 * `commondir`. `names`, when given, are the directory's entries (saves stats).
 */
export function isGitDirLayout(dir: string, names?: ReadonlySet<string>): boolean {
  if (names && !names.has("HEAD")) return false;
  const head = lst(join(dir, "HEAD"));
  if (!head || head.isDirectory()) return false;
  if ((!names || names.has("commondir")) && lst(join(dir, "commondir"))) return true;
  if (names && !(names.has("objects") && names.has("refs"))) return false;
  return isDirFollowed(join(dir, "objects")) && isDirFollowed(join(dir, "refs"));
}

function stateOf(path: string, kind: GitEntryKind): Map<string, string> {
  const m = new Map<string, string>();
  if (kind === "file" || kind === "link") {
    const s = lst(path);
    if (s) m.set("", ident(s));
    return m;
  }
  for (const name of GIT_STATE_NAMES) {
    const s = lst(join(path, name));
    if (s) m.set(name, ident(s));
  }
  return m;
}

const dotGitKind = (isLink: boolean, isDir: boolean): GitEntryKind => (isLink ? "link" : isDir ? "dir" : "file");

/** Walks `start` (a directory), adding its directories and repositories to `w`; repositories found go to `found`. */
function walk(w: GitWatch, start: string, found: GitEntry[], deadline: number): void {
  const stack = [start];
  while (stack.length > 0) {
    if (performance.now() > deadline) {
      w.complete = false;
      return;
    }
    const dir = stack.pop()!;
    const s = lst(dir);
    if (!s?.isDirectory()) continue;
    w.dirs.set(dir, s.mtimeMs);
    w.dirsWalked++;
    readRepoDir(w, dir, found, (p) => stack.push(p));
  }
}

/**
 * Reads one directory: records it (bare layout) or its `.git` entry as a
 * repository, and hands every subdirectory a work tree can hold to `sub`.
 */
function readRepoDir(w: GitWatch, dir: string, found: GitEntry[], sub: (p: string) => void): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const layout = isGitDirLayout(dir, new Set(entries.map((e) => e.name)));
  if (layout) addRepo(w, dir, "bare", found);
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.name === ".git") addRepo(w, p, dotGitKind(e.isSymbolicLink(), e.isDirectory()), found);
    else if (e.isDirectory() && !(layout && GIT_INTERNAL.has(e.name))) sub(p);
  }
}

function addRepo(w: GitWatch, path: string, kind: GitEntryKind, found: GitEntry[]): void {
  const old = w.repos.get(path);
  if (old && old.kind === kind) return;
  w.repos.set(path, { kind, state: stateOf(path, kind) });
  found.push({ path, kind });
}

/** The first, full walk of the roots (bounded by time only). */
export function watchGitState(roots: readonly string[], opts: { budgetMs?: number } = {}): GitWatch {
  const w: GitWatch = { roots: [...roots], dirs: new Map(), repos: new Map(), complete: true, dirsWalked: 0, active: 0 };
  const deadline = performance.now() + (opts.budgetMs ?? 5_000);
  for (const r of roots) walk(w, r, [], deadline);
  return w;
}

/**
 * What changed since the watch last looked: directories whose mtime moved are
 * read again (new subtrees walked whole), every known repository's protected
 * names looked up. Returns the repositories that are new and the known ones
 * whose `.git` entry changed or that gained protected names, and takes it
 * all as known from now on.
 */
export function gitStateChanges(w: GitWatch, sinceMs = -Infinity, budgetMs = 60_000): GitChange[] {
  const deadline = performance.now() + budgetMs;
  const fresh: GitEntry[] = [];
  /** Repositories inside a directory that appeared (created or moved in) since `sinceMs`: all made now. */
  const inNewTree = new Set<string>();
  for (const [dir, mtime] of w.dirs) {
    const s = lst(dir);
    if (!s?.isDirectory()) {
      w.dirs.delete(dir);
      continue;
    }
    if (s.mtimeMs === mtime) continue;
    w.dirs.set(dir, s.mtimeMs);
    readRepoDir(w, dir, fresh, (p) => {
      if (w.dirs.has(p)) return;
      const n = fresh.length;
      walk(w, p, fresh, deadline);
      if ((lst(p)?.ctimeMs ?? Infinity) >= sinceMs) for (const f of fresh.slice(n)) inNewTree.add(f.path);
    });
  }
  // Found but older than the command (the user's own, made between commands): known from now on.
  const out: GitChange[] = fresh.filter((f) => inNewTree.has(f.path) || writtenSince(f.path, f.kind, sinceMs));
  const isFresh = new Set(fresh.map((f) => f.path));
  for (const [path, rec] of w.repos) {
    if (isFresh.has(path)) continue;
    const now = stateOf(path, rec.kind);
    const top = lst(path);
    if (!top) {
      w.repos.delete(path);
      continue;
    }
    if (rec.kind === "file" || rec.kind === "link") {
      if (now.get("") !== rec.state.get("") && writtenSince(path, rec.kind, sinceMs)) out.push({ path, kind: rec.kind });
    } else {
      const added = [...now.keys()].filter((n) => !rec.state.has(n) && (lst(join(path, n))?.ctimeMs ?? -1) >= sinceMs);
      if (added.length > 0) out.push({ path, kind: rec.kind, names: added });
    }
    rec.state = now;
  }
  return out;
}

/** Whether a repository's entry, HEAD or protected pieces were written at or after `sinceMs` (inode change time). */
function writtenSince(path: string, kind: GitEntryKind, sinceMs: number): boolean {
  if ((lst(path)?.ctimeMs ?? -1) >= sinceMs) return true;
  if (kind === "file" || kind === "link") return false;
  return ["HEAD", ...GIT_STATE_NAMES].some((n) => (lst(join(path, n))?.ctimeMs ?? -1) >= sinceMs);
}

/** Re-read a repository's state after Reasonix moved pieces of it aside. */
export function rememberGitState(w: GitWatch, entry: GitEntry): void {
  const rec = w.repos.get(entry.path);
  if (rec) rec.state = stateOf(entry.path, rec.kind);
}

/**
 * Repositories whose git state was written at or after `sinceMs` (inode
 * change time): what a process killed in the middle of a command may have
 * left. For a git dir, `names` are the protected pieces written since.
 */
export function gitStateWrittenSince(w: GitWatch, sinceMs: number): GitChange[] {
  const out: GitChange[] = [];
  for (const [path, rec] of w.repos) {
    if (rec.kind === "file" || rec.kind === "link") {
      const s = lst(path);
      if (s && s.ctimeMs >= sinceMs) out.push({ path, kind: rec.kind });
      continue;
    }
    // worktrees/ and modules/ of a repository that was there before change with
    // every `git worktree add` or new submodule: only a new repository (HEAD
    // written since) loses them.
    const fresh = (lst(join(path, "HEAD"))?.ctimeMs ?? -1) >= sinceMs;
    const names = (fresh ? GIT_STATE_NAMES : GIT_DIR_PROTECTED).filter((n) => (lst(join(path, n))?.ctimeMs ?? -1) >= sinceMs);
    if (names.length > 0) out.push({ path, kind: rec.kind, names });
  }
  return out;
}

/** Entries of a git dir that make a directory one (HEAD, objects, refs, commondir) or decide what git runs. */
const LAYOUT_PIECES = new Set(["HEAD", "objects", "refs", "commondir", ...GIT_STATE_NAMES]);

/**
 * Why writing `path` (a file, or anything below a new directory) would make
 * an ancestor below `root` a git dir by git's rules, or change what an
 * existing one runs; null when it does neither. For the file tools, which
 * only see one path at a time: `src/HEAD`, `src/objects/…`, `src/refs/…` are
 * refused as soon as the write would complete the layout, and `config` or
 * `hooks/…` in a directory that is (or becomes) one are refused too.
 */
export function gitLayoutWriteReason(path: string, root: string): string | null {
  const rel = path.slice(root.length).split(/[\\/]+/).filter((c) => c !== "");
  for (let i = rel.length - 1; i >= 0; i--) {
    const piece = rel[i]!;
    if (!LAYOUT_PIECES.has(piece)) continue;
    const dir = join(root, ...rel.slice(0, i));
    const below = i < rel.length - 1; // the write is inside `piece`, which becomes a directory
    // After the write: `piece` exists, as a directory when the write is below it.
    const present = (name: string, asDir: boolean) =>
      piece === name ? asDir === below : asDir ? isDirFollowed(join(dir, name)) : !!lst(join(dir, name));
    const before = isGitDirLayout(dir);
    const after = present("HEAD", false) && (present("commondir", false) || (present("objects", true) && present("refs", true)));
    if (!after) continue;
    const where = dir === root ? "the workspace root" : dir;
    if (!before) return `it would make ${where} a git repository (HEAD, objects and refs), whose config the host's git would obey`;
    if (GIT_STATE_NAMES.includes(piece)) return `${where} is a git repository and ${piece} decides what git runs on the host`;
  }
  return null;
}
