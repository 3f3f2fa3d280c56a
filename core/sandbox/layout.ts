// Turns a PathPolicy into the concrete path lists the profiles iterate over,
// and guards the protected paths the OS layer cannot cover (ones that do not
// exist yet, since a mount needs something to mount over).
import { lstatSync, renameSync, statSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { diffRepos, foundAt, GIT_DIR_PROTECTED, gitlinks, gitProtection, indexStamp, scanRepos, stateChangedSince, workTreeOf, type FoundRepo, type RepoScan } from "../policy/git.ts";
import { isWithin, resolveReal, type PathPolicy } from "../policy/paths.ts";

export const exists = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

const kind = (p: string): "dir" | "file" | undefined => {
  try {
    return statSync(p).isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
};

export interface PolicyLayout {
  writeRoots: string[];
  /** Protected paths that exist now. */
  protectedExisting: string[];
  /** Protected paths that do not exist yet (guarded after the command). */
  protectedMissing: string[];
  /** Every protected path (Seatbelt works on names, existing or not). */
  protectedAll: string[];
  /** Existing directories between a write root and a protected path. */
  ancestors: string[];
  forbidDirs: string[];
  forbidFiles: string[];
  /** Forbidden entries that do not exist (Seatbelt can still deny them by name). */
  forbidAll: string[];
  /** The `.git` entries under the write roots before the command (bounded scan). */
  repos: RepoScan;
  /** Each found repository's index identity before the command (see guardNewRepos). */
  indexStamps: Map<string, string>;
  /** When the layout was taken, just before the command (ms since the epoch, with 1 s of slack). */
  since: number;
  /** Whether `repos` comes from the bounded scan (guardNewRepos compares against it); false when a complete watch stood in. */
  scanned: boolean;
}

/** The directories strictly between `root` and `path`. */
function between(root: string, path: string): string[] {
  const out: string[] = [];
  const rel = relative(root, path).split(sep).filter((s) => s !== "");
  let cur = root;
  for (const part of rel.slice(0, -1)) {
    cur = join(cur, part);
    out.push(cur);
  }
  return out;
}

/**
 * `knownRepos`: repositories the planted-state watch knows at any depth.
 * With `watchComplete` (its walk covered every directory of the roots, and
 * it re-reads every directory that changed) they are all there is, and the
 * bounded scan is not run again: one walk per command, not two.
 */
export function layoutFor(policy: PathPolicy, knownRepos: readonly FoundRepo[] = [], watchComplete = false): PolicyLayout {
  const writeRoots = policy.writeRoots.filter((r) => kind(r) !== undefined);
  // Scanned again for every command: repositories come and go during a session.
  const git = gitProtection(writeRoots, (p) => resolveReal(p), knownRepos, { scan: !watchComplete });
  const all = [...policy.protectedPaths];
  const listed = new Set(all.map((p) => p.path));
  for (const g of [...git.existing, ...git.missing, ...git.pointers]) if (!listed.has(g.path)) (listed.add(g.path), all.push({ ...g, name: g.path }));
  const protectedAll = all.map((p) => p.path);
  const protectedExisting = protectedAll.filter(exists);
  const protectedMissing = protectedAll.filter((p) => !exists(p));
  const ancestors: string[] = [];
  for (const pp of all) {
    if (!isWithin(pp.path, pp.root)) continue;
    for (const a of between(pp.root, pp.path)) if (kind(a) === "dir" && !ancestors.includes(a)) ancestors.push(a);
  }
  const forbidDirs: string[] = [];
  const forbidFiles: string[] = [];
  for (const f of policy.forbidRead) {
    const k = kind(f);
    if (k === "dir") forbidDirs.push(f);
    else if (k === "file") forbidFiles.push(f);
  }
  return { writeRoots, protectedExisting, protectedMissing, protectedAll, ancestors, forbidDirs, forbidFiles, forbidAll: [...policy.forbidRead], repos: git.scan, indexStamps: stampsOf(git.scan), since: Date.now() - 1000, scanned: !watchComplete };
}

export interface GuardReport {
  /** Protected paths the command created; each was renamed aside (never deleted). */
  violations: { path: string; movedTo: string }[];
  /** Other things the user should know (e.g. the planted-state watch covers only part of the tree). */
  notes?: string[];
}

/**
 * Call after the sandboxed command (and everything it started) has exited:
 * a protected path that did not exist before and exists now was created by
 * the command. It is renamed next to itself to an inert name, so nothing
 * (git, Reasonix's config loader) picks it up and nothing is lost.
 */
export function guardProtected(missingBefore: readonly string[]): GuardReport {
  const violations: GuardReport["violations"] = [];
  for (const p of missingBefore) if (exists(p)) violations.push(moveAside(p));
  return { violations };
}

/** Renames `p` next to itself to `.reasonix-blocked-<time>-<name>` (throws when it cannot). */
export function moveAside(p: string): { path: string; movedTo: string } {
  const movedTo = join(dirname(p), `.reasonix-blocked-${Date.now()}-${basename(p).replace(/^\./, "")}`);
  renameSync(p, movedTo);
  return { path: p, movedTo };
}

/**
 * Call after the command too: a `.git` entry it created (a new repository, a
 * gitlink file, a link) or redirected. A new `.git` directory keeps its
 * objects and refs but loses the pieces that make git run code (config,
 * hooks, pointers, worktree and submodule git dirs); a new or changed `.git`
 * file or link is moved aside whole.
 */
export function guardNewRepos(layout: PolicyLayout): GuardReport {
  // A complete watch finds these itself (gitStateChanges, at any depth, gitlinks' targets included).
  if (!layout.scanned) return { violations: [] };
  const after = gitScanAgain(layout);
  const violations: GuardReport["violations"] = [];
  const fresh = diffRepos(layout.repos, after);
  // A repository the command staged as a gitlink is entered by a plain `git
  // status` however deep it is, so the walk's bound must not hide it: ask
  // git for the gitlinks of every index the command changed.
  const known = new Set([...layout.repos.repos, ...fresh].map((r) => r.dotGit));
  for (const repo of layout.repos.repos) {
    if (!repo.gitDir || layout.indexStamps.get(repo.dotGit) === indexStamp(repo.gitDir)) continue;
    for (const link of gitlinks(workTreeOf(repo), repo.gitDir) ?? []) {
      const found = foundAt(join(link, ".git"), (p) => resolveReal(p));
      // Outside the walk's bound there is no listing from before: a gitlink
      // target counts as planted when its pointer or git state is new.
      if (found && !known.has(found.dotGit) && stateChangedSince(found, layout.since)) (known.add(found.dotGit), fresh.push(found));
    }
  }
  for (const repo of fresh) {
    if (repo.kind !== "dir") {
      if (exists(repo.dotGit)) violations.push(moveAside(repo.dotGit));
      continue;
    }
    for (const name of [...GIT_DIR_PROTECTED, "worktrees", "modules"]) {
      const p = join(repo.dotGit, name);
      if (exists(p)) violations.push(moveAside(p));
    }
  }
  return { violations };
}

function stampsOf(scan: RepoScan): Map<string, string> {
  const m = new Map<string, string>();
  for (const r of scan.repos) if (r.gitDir) m.set(r.dotGit, indexStamp(r.gitDir));
  return m;
}

const gitScanAgain = (layout: PolicyLayout): RepoScan => scanRepos(layout.writeRoots, (p) => resolveReal(p));
