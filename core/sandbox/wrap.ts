// wrapCommand: the argv, environment and descriptors that run a command under
// the OS sandbox (bubblewrap on Linux, Seatbelt on macOS) or unconfined, and
// the guard to call after it exits. See index.ts for the overview.
import { closeSync, existsSync, openSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import type { PathPolicy } from "../policy/paths.ts";
import { isWithin, resolveReal } from "../policy/paths.ts";
import { childEnv } from "./env.ts";
import { gitGuardBegin, gitGuardKnownRepos } from "./git-guard.ts";
import { guardNewRepos, guardProtected, layoutFor, type GuardReport } from "./layout.ts";
import { getProfile, loadBwrapProfile, renderBwrapArgs, renderSeatbelt } from "./profiles.ts";
import { probeSandbox, SEATBELT_PATH, type RefusalCode, type SandboxBackend, type SandboxStatus } from "./probe.ts";
import { unixSocketFilter } from "./seccomp.ts";
import { traceStart, traceStep } from "../trace.ts";
import { randomHex } from "../random.ts";

export type SandboxMode = "enforce" | "off";

export interface SandboxOptions {
  policy: PathPolicy;
  mode: SandboxMode;
  /** Allow network access (only meaningful under enforce). */
  network: boolean;
  /** Host directory private to this chat session (see createSessionTmpDir). */
  sessionTmpDir: string;
  /** Working directory; default policy.workspaceRoot. */
  cwd?: string;
  /** Base environment; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Reasonix's own credential names (provider key names, .env keys): removed even when passed through. */
  stripEnv?: Iterable<string>;
  /** [sandbox] env_passthrough (user config only): names kept beyond the allowlist. */
  envPassthrough?: Iterable<string>;
  /** [sandbox] ssh_agent (user config only): pass SSH_AUTH_SOCK and bind its socket. */
  sshAgent?: boolean;
  /**
   * Paths the command must read although they lie under a directory the
   * sandbox replaces (host /tmp, /var/tmp, /run): e.g. an MCP server's own
   * files. Bound read-only; forbid_read still hides what it names.
   */
  extraRead?: string[];
  /**
   * Watch for git state the command plants, at any depth (core/sandbox/git-guard.ts):
   * the bash tool and `reasonix sandbox run`; not long-lived servers.
   */
  watchGit?: boolean;
  /** For tests: pretend to be another platform. */
  platform?: NodeJS.Platform;
}

export interface SandboxRefusal {
  code: RefusalCode | "cwd-hidden" | "seccomp-unsupported";
  /** One user-facing sentence: cause and fix. */
  message: string;
  cause: string;
  fix: string;
}

export type WrappedCommand =
  | {
      ok: true;
      backend: SandboxBackend | "unconfined";
      argv: string[];
      env: Record<string, string>;
      cwd: string;
      /** Open descriptors the child must get as fd 3, 4, … (the seccomp program); see runSandboxed. */
      fds: number[];
      /** Call once the process has exited (closes `fds`, guards protected paths). */
      finish(): GuardReport;
      /** How to stop the process if a signal ends Reasonix before it exits (its clean-up then runs at once). */
      killWith(kill: () => void): void;
    }
  | { ok: false; refusal: SandboxRefusal };

function refusal(status: SandboxStatus): SandboxRefusal {
  const cause = status.cause ?? "the OS sandbox is unavailable";
  const fix = status.fix ?? 'set [sandbox] bash = "off"';
  return { code: status.code ?? "bwrap-failed", cause, fix, message: `bash is sandboxed (sandbox.bash = "enforce") but ${cause}. Fix: ${fix}.` };
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/** Shared temp dirs besides /tmp that the Linux profile replaces with an empty tmpfs. */
function sharedTmpDirs(): string[] {
  const real = resolveReal("/var/tmp");
  return existsSync(real) && !["/tmp", "/run"].some((h) => isWithin(real, h)) ? [real] : [];
}

/** Paths the Linux profile already hides or replaces; masking them again would only litter. */
function visibleInBwrap(p: string, writeRoots: readonly string[], hidden: readonly string[]): boolean {
  if (writeRoots.some((r) => isWithin(p, r))) return true;
  return ![...hidden, "/proc", "/dev"].some((h) => isWithin(p, h));
}

/** /etc/resolv.conf's real path when it lies under /run, which the profile hides. */
function resolverUnderRun(): string[] {
  const real = resolveReal("/etc/resolv.conf");
  return isWithin(real, "/run") && existsSync(real) ? [real] : [];
}

const tmpVars = (dir: string) => ({ TMPDIR: dir, TMP: dir, TEMP: dir });

/** Where the ssh-agent socket appears inside bwrap (under the sandbox's own empty /run). */
const AGENT_INSIDE = "/run/reasonix/ssh-agent.sock";

/** The agent socket named by SSH_AUTH_SOCK, resolved, when it is a socket. */
function agentSocket(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.SSH_AUTH_SOCK;
  if (!raw || !isAbsolute(raw)) return undefined;
  try {
    const real = resolveReal(raw);
    return statSync(real).isSocket() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The seccomp program as an open descriptor for `bwrap --seccomp 3`. Written
 * next to the session temp dir (its parent is hidden inside the sandbox)
 * under a fresh random name with O_EXCL, opened, and unlinked at once.
 */
function programFd(program: Buffer, dir: string): number {
  const path = join(dir, `seccomp-${process.pid}-${randomHex(6)}.bpf`);
  writeFileSync(path, program, { mode: 0o600, flag: "wx" });
  try {
    return openSync(path, "r");
  } finally {
    unlinkSync(path);
  }
}

function closeAll(fds: number[]): void {
  for (const fd of fds.splice(0)) {
    try {
      closeSync(fd);
    } catch {}
  }
}

export async function wrapCommand(argv: string[], opts: SandboxOptions): Promise<WrappedCommand> {
  const platform = opts.platform ?? process.platform;
  const cwd = opts.cwd ?? opts.policy.workspaceRoot;
  const base = opts.env ?? process.env;
  // The backend's probe (once per process: two bwrap starts) runs while the git state is scanned.
  const probe = opts.mode === "off" ? undefined : probeSandbox(platform);
  // Planted git state, found by git's rules at any depth, in every mode.
  const t0 = traceStart();
  const watch = opts.watchGit ? gitGuardBegin(opts.policy.writeRoots, opts.policy.reasonixHome) : undefined;
  if (watch) traceStep("bash:git-scan", t0);
  const t1 = traceStart();
  const noGuard = (): GuardReport => ({ violations: watch?.end() ?? [], notes: watch?.notes ?? [] });
  const killWith = (k: () => void) => watch?.killWith(k);

  const agent = opts.sshAgent ? agentSocket(base) : undefined;
  const envFor = (set: Record<string, string>) => childEnv(base, { strip: opts.stripEnv, passthrough: opts.envPassthrough, set });

  if (opts.mode === "off") {
    const env = envFor({ ...tmpVars(opts.sessionTmpDir), ...(agent ? { SSH_AUTH_SOCK: agent } : {}) });
    return { ok: true, backend: "unconfined", argv, env, cwd, fds: [], finish: noGuard, killWith };
  }

  const status = await probe!;
  if (!status.available) return (noGuard(), { ok: false, refusal: refusal(status) });
  // Repositories the planted-state watch knows at any depth get their git state mounted read-only too.
  // With a complete watch its repositories stand in for the bounded scan (layout.ts).
  const layout = layoutFor(opts.policy, watch ? gitGuardKnownRepos(opts.policy.writeRoots, (p) => resolveReal(p)) : [], watch?.complete === true);
  traceStep("bash:layout", t1);
  const guard = (): GuardReport => {
    const own = [...guardProtected(layout.protectedMissing).violations, ...guardNewRepos(layout).violations];
    const watched = noGuard();
    return { violations: [...own, ...watched.violations], notes: watched.notes };
  };

  if (status.backend === "bwrap") {
    const profile = loadBwrapProfile();
    const roots = layout.writeRoots;
    const sharedTmp = sharedTmpDirs();
    const hidden = ["/tmp", "/run", ...sharedTmp];
    // A workspace that is not writable (a confined subagent's policy) stays readable.
    const ws = opts.policy.workspaceRoot;
    const wanted = [...(opts.extraRead ?? []), ...(roots.some((r) => isWithin(ws, r)) ? [] : [ws])];
    const readRoots = wanted.filter((p) => existsSync(p) && hidden.some((h) => isWithin(p, h)) && !roots.some((r) => isWithin(p, r)));
    const visible = (xs: string[]) => xs.filter((p) => visibleInBwrap(p, [...roots, ...readRoots], hidden));
    const tmpParent = dirname(opts.sessionTmpDir);
    if (hidden.some((h) => isWithin(cwd, h)) && ![...roots, ...readRoots].some((r) => isWithin(cwd, r))) {
      const fix = "run from the workspace or add the directory with --write / sandbox.allow_write";
      noGuard();
      return { ok: false, refusal: { code: "cwd-hidden", cause: `${cwd} is not visible inside the sandbox`, fix, message: `${cwd} is not visible inside the sandbox (host /tmp, /var/tmp and /run are replaced by empty or private dirs). Fix: ${fix}.` } };
    }
    // Network off: no unix socket either (pathname sockets can sit anywhere readable).
    let fds: number[] = [];
    if (!opts.network) {
      const filter = unixSocketFilter();
      if (!filter.ok) {
        noGuard();
        const fix = 'set [sandbox] network = true (host unix sockets become reachable) or bash = "off"';
        return { ok: false, refusal: { code: "seccomp-unsupported", cause: filter.cause, fix, message: `bash is sandboxed with the network off but ${filter.cause}. Fix: ${fix}.` } };
      }
      fds = [programFd(filter.program, tmpParent)];
    }
    const finish = (): GuardReport => (closeAll(fds), guard());
    const args = renderBwrapArgs(profile, {
      asRoot: isRoot(),
      network: opts.network,
      scalars: { session_tmp: opts.sessionTmpDir, cwd, seccomp_fd: "3" },
      lists: {
        read_roots: readRoots,
        write_roots: roots,
        session_tmp_parents: visible([tmpParent]),
        run_keep: resolverUnderRun(),
        keep_ancestors: visible(layout.ancestors),
        protected: visible(layout.protectedExisting),
        forbid_dirs: visible(layout.forbidDirs),
        forbid_files: visible(layout.forbidFiles),
        ssh_agent: agent ? [agent] : [],
        shared_tmp: sharedTmp,
      },
    });
    const env = envFor({ ...profile.env, ...(agent ? { SSH_AUTH_SOCK: AGENT_INSIDE } : {}) });
    traceStep("bash:sandbox", t1);
    return { ok: true, backend: "bwrap", argv: [status.path!, ...args, "--", ...argv], env, cwd, fds, finish, killWith };
  }

  // Seatbelt
  const { profile, defines } = renderSeatbelt(getProfile("macos-seatbelt").text, {
    scalars: { NETWORK: opts.network ? "1" : "0", SESSION_TMP: opts.sessionTmpDir, SESSION_TMP_PARENT: dirname(opts.sessionTmpDir) },
    lists: {
      WRITE_ROOT: layout.writeRoots,
      FORBID_READ: layout.forbidAll,
      PROTECTED: layout.protectedAll,
      PROTECTED_ANCESTOR: [...layout.ancestors, ...layout.protectedAll],
    },
  });
  const env = envFor({ ...tmpVars(opts.sessionTmpDir), ...(agent ? { SSH_AUTH_SOCK: agent } : {}) });
  const full = [SEATBELT_PATH, "-p", profile, ...defines.flatMap(([k, v]) => ["-D", `${k}=${v}`]), ...argv];
  return { ok: true, backend: "seatbelt", argv: full, env, cwd, fds: [], finish: guard, killWith };
}
