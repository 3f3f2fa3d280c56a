/**
 * Planted git state, found and neutralised around every command, at session
 * start, and when Reasonix is stopped by a signal (core/policy/git-watch.ts
 * finds it; this file keeps the watch per set of write roots, moves what it
 * finds aside, and leaves a record a killed process cannot clean up).
 *
 *   const notes = gitGuardAtStart(roots, home)   // a session starts: what a killed run left (full walk then)
 *   const cmd = gitGuardBegin(roots, home)       // before a command (records it as pending)
 *   cmd.end()                                    // after it: moved-aside paths, the record dropped
 *
 * Neutralised means renamed next to itself to `.reasonix-blocked-<time>-<name>`
 * (never deleted): a new repository keeps its objects and refs but loses its
 * config, hooks and pointer files; a new or redirected `.git` file or link is
 * moved aside whole. SIGTERM and SIGHUP run the clean-up of every command in
 * flight before the front end's own handling; after SIGKILL the record stays
 * and the next session start in those roots checks what was written since.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { foundAt, type FoundRepo } from "../policy/git.ts";
import { processAlive } from "../process/alive.ts";
import { exists, moveAside } from "./layout.ts";
import { gitStateChanges, gitStateWrittenSince, GIT_STATE_NAMES, rememberGitState, watchGitState, type GitChange, type GitWatch } from "../policy/git-watch.ts";

export interface MovedAside {
  path: string;
  movedTo: string;
}

/** Time the first walk of a workspace may take (see docs/sandbox.md); beyond it, what is left is not watched. */
export const START_BUDGET_MS = 5_000;

const watches = new Map<string, GitWatch>();
/** Start times (with slack) of the commands running per watch: a check counts changes since the earliest. */
const starts = new Map<GitWatch, number[]>();
/**
 * The kernel stamps inode times from a coarse clock (a few ms behind), and
 * some filesystems (HFS+) keep whole seconds: slack for both.
 */
const SLACK_MS = process.platform === "linux" ? 100 : 1000;
const keyOf = (roots: readonly string[]) => [...roots].sort().join("\0");

function moveAsideOrSkip(p: string): MovedAside | undefined {
  try {
    return moveAside(p);
  } catch {
    return undefined;
  }
}

/** Moves aside what makes each change run code; the watch takes the result as known. */
export function neutralise(w: GitWatch | undefined, changes: readonly GitChange[]): MovedAside[] {
  const out: MovedAside[] = [];
  for (const c of changes) {
    if (c.kind === "file" || c.kind === "link") {
      const m = exists(c.path) ? moveAsideOrSkip(c.path) : undefined;
      if (m) out.push(m);
      if (m && w) w.repos.delete(c.path);
      continue;
    }
    for (const name of c.names ?? GIT_STATE_NAMES) {
      const p = join(c.path, name);
      const m = exists(p) ? moveAsideOrSkip(p) : undefined;
      if (m) out.push(m);
    }
    if (w) rememberGitState(w, c);
  }
  return out;
}

// ---------------------------------------------------------------- pending records (for SIGKILL)

interface PendingRecord {
  pid: number;
  since: number;
  roots: string[];
}

const pendingDir = (home: string) => join(home, "git-watch");
let seq = 0;

function writePending(home: string, roots: readonly string[]): string | undefined {
  try {
    mkdirSync(pendingDir(home), { recursive: true, mode: 0o700 });
    const p = join(pendingDir(home), `pending-${process.pid}-${++seq}.json`);
    writeFileSync(p, JSON.stringify({ pid: process.pid, since: Date.now() - SLACK_MS, roots: [...roots] } satisfies PendingRecord), { mode: 0o600 });
    return p;
  } catch {
    return undefined;
  }
}

const alive = (pid: number): boolean => pid === process.pid || processAlive(pid);

/** Records of commands in these roots whose process is gone (killed mid-command): the earliest start. */
function takeStalePending(home: string, roots: readonly string[]): number | undefined {
  let since: number | undefined;
  let names: string[];
  try {
    names = readdirSync(pendingDir(home));
  } catch {
    return undefined;
  }
  for (const n of names) {
    if (!/^pending-\d+-\d+\.json$/.test(n)) continue;
    const p = join(pendingDir(home), n);
    let rec: PendingRecord;
    try {
      rec = JSON.parse(readFileSync(p, "utf8"));
    } catch {
      continue;
    }
    if (!Array.isArray(rec.roots) || typeof rec.since !== "number" || alive(rec.pid)) continue;
    if (!rec.roots.some((r) => roots.includes(r))) continue;
    since = Math.min(since ?? rec.since, rec.since);
    try {
      unlinkSync(p);
    } catch {}
  }
  return since;
}

// ---------------------------------------------------------------- the watch per roots

function watchFor(roots: readonly string[]): GitWatch {
  const k = keyOf(roots);
  let w = watches.get(k);
  if (!w) {
    w = watchGitState(roots.filter((r) => existsSync(r)), { budgetMs: START_BUDGET_MS });
    watches.set(k, w);
  }
  return w;
}

const incompleteNote = (w: GitWatch, roots: readonly string[]) =>
  `planted-git-state detection covers only the first ${w.dirsWalked} directories of ${roots.join(", ")} (the walk took longer than ${START_BUDGET_MS / 1000} s); repositories created beyond them are not checked`;

export interface StartReport {
  moved: MovedAside[];
  /** Warnings for the transcript (what was moved aside and why; an incomplete walk). */
  notes: string[];
  dirsWalked: number;
}

/**
 * At session start: when a Reasonix process was killed in the middle of a
 * command in these roots, walk them (once per process and set of roots) and
 * neutralise the git state written since that command started. Otherwise the
 * first walk happens before the first command.
 */
export function gitGuardAtStart(roots: readonly string[], home: string): StartReport {
  installSignalCleanup();
  const since = takeStalePending(home, roots);
  // Nothing to recover: the first walk waits for the first command (a session that never runs one never pays for it).
  if (since === undefined) return { moved: [], notes: [], dirsWalked: 0 };
  const w = watchFor(roots);
  const moved = neutralise(w, gitStateWrittenSince(w, since));
  const notes = moved.map((m) => `git state written by a Reasonix command that did not finish (the process was killed): ${m.path} was moved aside to ${m.movedTo}, so git cannot run code from it`);
  if (!w.complete) notes.push(incompleteNote(w, roots));
  return { moved, notes, dirsWalked: w.dirsWalked };
}

export interface GuardedCommand {
  /** After the command (idempotent): what was moved aside. */
  end(): MovedAside[];
  /** Said once per watch: it covers only part of the roots (the first walk ran out of time). */
  notes: string[];
  /** How to stop the command when a signal ends Reasonix (set once it was spawned). */
  killWith(kill: () => void): void;
  /** The watch knows every repository under the roots now (its first walk finished in time, and it was brought up to date). */
  complete: boolean;
}

const inFlight = new Set<() => void>();

/** Before a command in `roots`: note its start, and leave a record in case the process is killed. */
export function gitGuardBegin(roots: readonly string[], home: string): GuardedCommand {
  installSignalCleanup();
  const isNew = !watches.has(keyOf(roots));
  const w = watchFor(roots);
  // Repositories made since the last look (the user's, between commands) become
  // known, so the sandbox mounts their git state read-only: a stat per
  // directory. Not while another command runs here: its changes stay its own.
  const current = isNew || w.active === 0;
  if (!isNew && w.active === 0) gitStateChanges(w, Infinity);
  const notes = isNew && !w.complete ? [incompleteNote(w, roots)] : [];
  const since = Date.now() - SLACK_MS;
  const running = starts.get(w) ?? [];
  starts.set(w, [...running, since]);
  w.active++;
  const record = writePending(home, roots);
  let ended: MovedAside[] | undefined;
  let kill: (() => void) | undefined;
  const end = (keepRecord = false): MovedAside[] => {
    if (ended) return ended;
    inFlight.delete(onSignal);
    w.active--;
    const all = starts.get(w) ?? [since];
    const earliest = Math.min(...all);
    all.splice(all.indexOf(since), 1);
    ended = neutralise(w, gitStateChanges(w, earliest));
    if (record && !keepRecord) {
      try {
        unlinkSync(record);
      } catch {}
    }
    return ended;
  };
  // On SIGTERM/SIGHUP: stop the command, then clean up; the record stays for the next start to check again.
  const onSignal = () => {
    try {
      kill?.();
    } catch {}
    end(true);
  };
  inFlight.add(onSignal);
  return { end: () => end(), notes, killWith: (k) => void (kill = k), complete: w.complete && current };
}

/** Every repository the watch of these roots knows, at any depth (for the sandbox to mount their git state read-only). */
export function gitGuardKnownRepos(roots: readonly string[], real: (p: string) => string): FoundRepo[] {
  const w = watches.get(keyOf(roots));
  if (!w) return [];
  const out: FoundRepo[] = [];
  for (const [path, rec] of w.repos) {
    if (rec.kind === "dir" || rec.kind === "bare") out.push({ dotGit: path, kind: "dir", gitDir: real(path) });
    else {
      const f = foundAt(path, real);
      if (f) out.push(f);
    }
  }
  return out;
}

/** After a file tool wrote (at `since`, with slack): the same check (cheap: only directories whose mtime moved). */
export function gitGuardAfterWrite(roots: readonly string[], since: number): MovedAside[] {
  const w = watches.get(keyOf(roots));
  if (!w || w.active > 0) return [];
  return neutralise(w, gitStateChanges(w, since - SLACK_MS));
}

let installed = false;
const SIGNALS = { SIGTERM: 15, SIGHUP: 1 } as const;

/**
 * SIGTERM/SIGHUP: clean up every command in flight, synchronously, before
 * anything else. A front end with its own handler (chat, serve) then quits
 * its way; without one, the process exits as the signal would have ended it.
 */
function installSignalCleanup(): void {
  if (installed) return;
  installed = true;
  for (const [sig, n] of Object.entries(SIGNALS) as [keyof typeof SIGNALS, number][]) {
    process.prependListener(sig, () => {
      for (const f of [...inFlight]) f();
      if (process.listenerCount(sig) <= 1) process.exit(128 + n);
    });
  }
  process.on("exit", () => {
    for (const f of [...inFlight]) f();
  });
}

/** For tests and benchmarks: forget every watch (a new process would). */
export function resetGitGuard(): void {
  watches.clear();
}
