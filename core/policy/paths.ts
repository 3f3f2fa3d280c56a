/**
 * The path policy: which files the agent may read and write. One module,
 * shared by the engine's in-process file tools and the OS sandbox (bwrap /
 * Seatbelt), so both layers enforce the same roots.
 *
 *   const policy = createPathPolicy({ config: values.sandbox, cwd, extraWrite: ["../lib"] });
 *   const d = policy.checkWrite("src/a.ts");       // relative paths resolve against workspaceRoot
 *   if (!d.allowed) throw new ReasonixError(d.code, d.reason);
 *   writeFile(d.path, ...);                         // d.path is the resolved (real) path
 *
 * Every path is resolved the way the kernel would open it: `..` and symlinks
 * are followed component by component, and a path that does not exist yet is
 * the real path of its deepest existing ancestor plus the remaining names.
 * A link inside the workspace therefore cannot tunnel out, and a `..` that
 * climbs out of a symlinked directory lands where the OS would land.
 *
 * Rules:
 * - writes must fall inside a write root (workspace_root, allow_write,
 *   extra roots such as --add-dir / --write); `/` and Reasonix state are
 *   refused as roots; `onlyWrite` narrows them (a confined subagent);
 * - inside writable roots the protected paths stay read-only: `.reasonix/`,
 *   `reasonix.toml`, `.mcp.json`, and the git state that makes the host's git
 *   run code (hooks, config, commondir, gitdir, worktree and submodule git
 *   dirs, `.git` pointer files) of the roots' repositories and of nested ones
 *   (core/policy/git.ts); removing or renaming one of their ancestors is
 *   refused too (see `checkRemove`);
 * - `forbid_read` entries and `$REASONIX_HOME` can be neither read nor written.
 *
 * Construction throws a ReasonixError (code "sandbox-policy") naming the bad
 * entry; a bad policy never silently becomes a weaker one.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import { ReasonixError } from "../errors.ts";
import { reasonixHome as defaultReasonixHome } from "../home.ts";
import { gitProtection, gitStateReason, type GitProtection } from "./git.ts";
import { gitLayoutWriteReason } from "./git-watch.ts";
import { traceStart, traceStep } from "../trace.ts";

/** The `[sandbox]` config section as loaded (all fields optional). */
export interface SandboxConfig {
  bash?: "enforce" | "off";
  workspace_root?: string;
  allow_write?: string[];
  forbid_read?: string[];
  network?: boolean;
  /** User config only: extra variable names bash may see. */
  env_passthrough?: string[];
  /** User config only: pass the ssh-agent socket into bash. */
  ssh_agent?: boolean;
}

export interface PathPolicyOptions {
  /** The `[sandbox]` section of the loaded config. */
  config?: SandboxConfig;
  /** Base for a relative workspace_root and the default root. Default process.cwd(). */
  cwd?: string;
  /** Extra write roots from flags (--add-dir, --write); relative ones resolve against cwd. */
  extraWrite?: string[];
  /** Extra forbid-read entries from flags (--forbid-read). */
  extraForbidRead?: string[];
  /** Reasonix state directory; default $REASONIX_HOME or ~/.reasonix. */
  reasonixHome?: string;
  /** Environment for `${VAR}` expansion. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Narrow the write roots to these paths (relative ones resolve against the
   * workspace root): a subagent confined to its declared write_paths, or none
   * at all for a read-only one. Only paths the full policy would let be
   * written are kept (never a root outside it, never protected state); the
   * workspace itself stays readable but is no longer a write root.
   */
  onlyWrite?: readonly string[];
  /** With onlyWrite: the policy of the same options without it, when the caller has built it already. */
  full?: PathPolicy;
  /**
   * When the nested-repository scan runs. "now" (the default): during
   * construction. "deferred" (the engine's sessions): the first time
   * something needs the protected paths (`protectedPaths`, `checkWrite`,
   * `checkRemove`: a write, a removal, a bash command's sandbox), before that
   * decision is made. Every change a tool makes passes one of them first, so
   * the scan still sees the workspace as it was before the agent changed
   * anything; a session that only reads or answers never scans.
   */
  scan?: "now" | "deferred";
}

export type PathDenyCode =
  | "outside-write-roots"
  | "protected-path"
  | "forbidden-read"
  | "reasonix-state";

export type PathDecision =
  | { allowed: true; path: string }
  | { allowed: false; path: string; code: PathDenyCode; reason: string };

/** Reasonix's own project inputs: read-only inside every writable root. Git state is protected by core/policy/git.ts. */
export const PROTECTED_NAMES: readonly string[] = [".reasonix", "reasonix.toml", ".mcp.json"];

export interface ProtectedPath {
  /** Absolute resolved path (may not exist yet). */
  path: string;
  /** The write root it lives in. */
  root: string;
  /** The entry of PROTECTED_NAMES it came from. */
  name: string;
}

export interface PathPolicy {
  /** Resolved workspace root (also the first write root). */
  readonly workspaceRoot: string;
  /** Resolved, de-duplicated write roots; workspaceRoot first. */
  readonly writeRoots: readonly string[];
  /** Resolved paths that may be neither read nor written (includes reasonixHome). */
  readonly forbidRead: readonly string[];
  /** Resolved Reasonix state directory. */
  readonly reasonixHome: string;
  /** Protected paths inside each write root (existing or not). */
  readonly protectedPaths: readonly ProtectedPath[];
  /** Resolve a path (relative to workspaceRoot) as the kernel would. */
  resolve(p: string): string;
  checkRead(p: string): PathDecision;
  checkWrite(p: string): PathDecision;
  /** Like checkWrite, and also refuses removing/renaming an ancestor of a protected path. */
  checkRemove(p: string): PathDecision;
}

/** Expand `${VAR}`, `$VAR` and a leading `~`; an unset variable is an error (fail closed). */
export function expandPathVars(p: string, env: NodeJS.ProcessEnv, field: string): string {
  const home = env.HOME || homedir();
  let out = p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : p;
  out = out.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b)!;
    const v = name === "HOME" ? home : env[name];
    if (v === undefined || v === "") {
      throw new ReasonixError("sandbox-policy", `${field}: "${p}" uses \${${name}}, which is not set`, {
        hint: "set the variable or write the path out in full",
      });
    }
    return v;
  });
  return out;
}

const MAX_LINKS = 40;

/**
 * Per-process entries under /proc (`environ`, `cmdline`, `mem`, `fd/`…) of
 * Reasonix itself or any other process: the agent's own environment holds the
 * provider keys that bash is carefully run without, so no tool may read them.
 * Matched on resolved paths, where `/proc/self` has become `/proc/<pid>`.
 */
const PROC_PROCESS = /^\/proc\/(?:self|thread-self|[0-9]+)(?:\/|$)/;
export const isProcessState = (resolved: string): boolean => PROC_PROCESS.test(resolved);

/**
 * Resolve `p` against `base` following symlinks and `..` in order, as open(2)
 * would. Components after the first missing one are joined lexically (they
 * cannot be links yet).
 */
export function resolveReal(p: string, base: string = process.cwd()): string {
  // No path.join here: it would collapse `..` lexically before links are seen.
  const start = isAbsolute(p) ? p : `${base}${sep}${p}`;
  const pending = start.split(/[\\/]+/).filter((c) => c !== "");
  let current: string = sep;
  let missing = false;
  let hops = 0;
  while (pending.length > 0) {
    const comp = pending.shift()!;
    if (comp === ".") continue;
    if (comp === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, comp);
    if (missing) {
      current = next;
      continue;
    }
    let st;
    try {
      st = lstatSync(next);
    } catch {
      missing = true;
      current = next;
      continue;
    }
    if (st.isSymbolicLink()) {
      if (++hops > MAX_LINKS) throw new ReasonixError("sandbox-policy", `too many levels of symbolic links resolving ${p}`);
      const target = readlinkSync(next);
      const parts = target.split(/[\\/]+/).filter((c) => c !== "");
      pending.unshift(...parts);
      if (isAbsolute(target)) current = sep;
      continue;
    }
    current = next;
  }
  return current;
}

/** True when `p` is `root` or inside it (both resolved). */
export function isWithin(p: string, root: string): boolean {
  if (p === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return p.startsWith(prefix);
}

export function createPathPolicy(opts: PathPolicyOptions = {}): PathPolicy {
  const env = opts.env ?? process.env;
  const cfg = opts.config ?? {};
  const cwd = resolveReal(opts.cwd ?? process.cwd());
  const stateDir = resolveReal(opts.reasonixHome ?? defaultReasonixHome(env));

  const rootFor = (raw: string, field: string): string => {
    const expanded = expandPathVars(raw, env, field);
    const real = resolveReal(expanded, cwd);
    if (real === sep) {
      throw new ReasonixError("sandbox-policy", `${field}: "${raw}" resolves to the filesystem root, which cannot be a write root`);
    }
    // A root that merely contains the state dir (e.g. $HOME) is allowed: the
    // state dir stays masked inside it. A root inside the state dir is not.
    if (isWithin(real, stateDir)) {
      throw new ReasonixError("sandbox-policy", `${field}: "${raw}" (${real}) lies inside Reasonix state ${stateDir}, which is never writable`, {
        hint: "pick a directory outside $REASONIX_HOME",
      });
    }
    return real;
  };

  const workspaceRoot = cfg.workspace_root ? rootFor(cfg.workspace_root, "sandbox.workspace_root") : rootFor(cwd, "workspace (cwd)");
  const writeRoots: string[] = [workspaceRoot];
  const addRoot = (r: string) => {
    if (!writeRoots.includes(r)) writeRoots.push(r);
  };
  for (const w of cfg.allow_write ?? []) addRoot(rootFor(w, "sandbox.allow_write"));
  for (const w of opts.extraWrite ?? []) addRoot(rootFor(w, "--write"));
  if (opts.onlyWrite) {
    // Narrowing only: each path must be writable under the full policy.
    const full = opts.full ?? createPathPolicy({ ...opts, onlyWrite: undefined });
    const kept = opts.onlyWrite.map((p) => full.checkWrite(p)).filter((d) => d.allowed && d.path !== sep).map((d) => d.path);
    writeRoots.splice(0, writeRoots.length, ...new Set(kept));
  }

  const forbidRead: string[] = [stateDir];
  const addForbid = (raw: string, field: string) => {
    const real = resolveReal(expandPathVars(raw, env, field), cwd);
    if (real === sep) throw new ReasonixError("sandbox-policy", `${field}: "${raw}" would hide the whole filesystem`);
    if (!forbidRead.includes(real)) forbidRead.push(real);
  };
  for (const f of cfg.forbid_read ?? []) addForbid(f, "sandbox.forbid_read");
  for (const f of opts.extraForbidRead ?? []) addForbid(f, "--forbid-read");

  // Git state of the roots' repositories and of every nested one the bounded
  // scan finds (hooks, config, commondir, gitdir, worktree and submodule git
  // dirs, `.git` pointer files). Links are resolved: a planted
  // `.git -> elsewhere` protects the real target.
  const real = (p: string) => resolveReal(p);
  let known: ProtectedPath[] | undefined;
  /** The protected paths, scanned now if they are not known yet (a deferred scan is traced as policy:scan, docs/how-fast.md). */
  const protectedPaths = (): ProtectedPath[] => {
    if (known) return known;
    const t0 = traceStart();
    known = protectedIn(writeRoots, gitProtection(writeRoots, real));
    traceStep("policy:scan", t0);
    return known;
  };
  if (opts.scan !== "deferred") protectedPaths();

  const resolvePath = (p: string) => resolveReal(p, workspaceRoot);

  const forbidden = (path: string): PathDecision | null => {
    if (isWithin(path, stateDir)) {
      return { allowed: false, path, code: "reasonix-state", reason: `${path} is Reasonix state (sessions, credentials); the agent can never access it` };
    }
    for (const f of forbidRead) {
      if (isWithin(path, f)) return { allowed: false, path, code: "forbidden-read", reason: `${path} is hidden by sandbox.forbid_read (${f})` };
    }
    if (isProcessState(path)) {
      return { allowed: false, path, code: "forbidden-read", reason: `${path} is process state (environment, memory, open files); tools never read it` };
    }
    return null;
  };

  const checkRead = (p: string): PathDecision => {
    const path = resolvePath(p);
    return forbidden(path) ?? { allowed: true, path };
  };

  const checkWrite = (p: string): PathDecision => {
    const path = resolvePath(p);
    const f = forbidden(path);
    if (f) return f;
    if (!writeRoots.some((r) => isWithin(path, r))) {
      return {
        allowed: false,
        path,
        code: "outside-write-roots",
        reason: `${path} is outside the writable roots (${writeRoots.join(", ")}); add it with --add-dir or sandbox.allow_write`,
      };
    }
    const hit = protectedPaths().find((pp) => isWithin(path, pp.path));
    if (hit) {
      return { allowed: false, path, code: "protected-path", reason: `${path} is protected (${hit.name} stays read-only inside ${hit.root})` };
    }
    // By name too, so repositories created after the scan are covered, and
    // the path as given, so a `.git` that is a link is seen as `.git`.
    const lexical = normalize(isAbsolute(p) ? p : join(workspaceRoot, p));
    const root = writeRoots.find((r) => isWithin(path, r))!;
    const why = gitStateReason(lexical) ?? gitStateReason(path) ?? gitLayoutWriteReason(path, root);
    if (why) return { allowed: false, path, code: "protected-path", reason: `${path} is protected git state (${why}); run git commands that change it yourself` };
    return { allowed: true, path };
  };

  const checkRemove = (p: string): PathDecision => {
    const d = checkWrite(p);
    if (!d.allowed) return d;
    const hit = protectedPaths().find((pp) => isWithin(pp.path, d.path) && pp.path !== d.path);
    if (hit) {
      return { allowed: false, path: d.path, code: "protected-path", reason: `${d.path} contains the protected ${hit.name}; it cannot be removed or renamed` };
    }
    if (writeRoots.includes(d.path)) {
      return { allowed: false, path: d.path, code: "protected-path", reason: `${d.path} is a write root; it cannot be removed or renamed` };
    }
    return d;
  };

  return {
    workspaceRoot,
    writeRoots,
    forbidRead,
    reasonixHome: stateDir,
    get protectedPaths() {
      return protectedPaths();
    },
    resolve: resolvePath,
    checkRead,
    checkWrite,
    checkRemove,
  };
}

/** The protected paths of the roots: their repositories' git state (`git`), then Reasonix's own names in each root. */
function protectedIn(writeRoots: readonly string[], git: GitProtection): ProtectedPath[] {
  const out: ProtectedPath[] = [];
  const listed = new Set<string>();
  const protect = (path: string, root: string, name: string) => {
    if (!listed.has(path)) (listed.add(path), out.push({ path, root, name }));
  };
  const gitName = (path: string, root: string) => (isWithin(path, root) ? path.slice(root.length + 1) : path);
  for (const { path, root } of [...git.existing, ...git.missing, ...git.pointers]) protect(path, root, gitName(path, root));
  for (const root of writeRoots) {
    for (const name of PROTECTED_NAMES) protect(resolveReal(join(root, name)), root, name);
  }
  return out;
}
