/**
 * The OS sandbox for shell commands (the engine's `bash` tool and
 * `reasonix sandbox run`).
 *
 * Typical use from a tool:
 *
 *   import { createPathPolicy } from "../policy/paths.ts";
 *   import { runShell, createSessionTmpDir } from "../sandbox/index.ts";
 *
 *   const policy = createPathPolicy({ config: cfg.sandbox, cwd, extraWrite: addDirs });
 *   const res = await runShell("npm test", {
 *     policy, mode: cfg.sandbox.bash ?? "enforce", network: !!cfg.sandbox.network,
 *     sessionTmpDir,                 // one per chat session: createSessionTmpDir()
 *     cwd, timeoutMs: 120_000, signal, maxOutputBytes: 30_000,
 *     stripEnv: providerKeyNames,    // api_key_env names + keys of $REASONIX_HOME/.env
 *     envPassthrough: cfg.sandbox.env_passthrough, sshAgent: cfg.sandbox.ssh_agent,  // user config only
 *   });
 *   if (!res.ok) return toolError(res.refusal.message);   // typed refusal: nothing ran
 *   res.exitCode, res.output (stdout+stderr interleaved), res.timedOut, res.violations
 *
 * `wrapCommand(argv, opts)` returns the argv/env/cwd to spawn yourself, the
 * descriptors to hand the child as fd 3… (`fds`: the seccomp program), plus a
 * `finish()` to call after the process exits (it closes `fds` and guards
 * protected paths and `.git` entries the command created).
 *
 * Modes: "enforce" runs under bubblewrap (Linux) or Seatbelt (macOS) and
 * refuses with a `SandboxRefusal` (cause + fix) when the backend is missing
 * or broken, or on Windows; "off" runs unconfined and never probes. In every
 * mode the child environment is an allowlist (core/sandbox/env.ts) plus
 * env_passthrough, never Reasonix's own keys, and TMPDIR/TMP/TEMP point at
 * the session temp dir (`/tmp` inside bwrap). With the network off, bwrap
 * also gets a seccomp filter that refuses unix sockets (core/sandbox/seccomp.ts).
 */
import { randomBytes } from "node:crypto";
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

export { childEnv, isCredentialName } from "./env.ts";
export { probeSandbox, resetSandboxProbe, type SandboxStatus } from "./probe.ts";
export { gitGuardAfterWrite, gitGuardAtStart } from "./git-guard.ts";
export { createSessionTmpDir, removeSessionTmpDir, sessionTmpParent } from "./tmp.ts";
export { listProfiles, getProfile } from "./profiles.ts";

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
  const path = join(dir, `seccomp-${process.pid}-${randomBytes(6).toString("hex")}.bpf`);
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

  const status = await probeSandbox(platform);
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

export interface RunOptions extends SandboxOptions {
  /** Kill the command after this many ms (0/undefined = no limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Keep at most this many bytes of output (the rest is counted, not kept). Default 1 MiB. */
  maxOutputBytes?: number;
  /** Streamed output, as it arrives. */
  onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Text fed to stdin (default: no stdin). */
  stdin?: string;
}

export type RunResult =
  | {
      ok: true;
      backend: SandboxBackend | "unconfined";
      exitCode: number | null;
      /** Signal that ended the process, if any. */
      signalCode: string | null;
      /** stdout and stderr interleaved as they arrived. */
      output: string;
      stdout: string;
      stderr: string;
      timedOut: boolean;
      aborted: boolean;
      truncated: boolean;
      durationMs: number;
      /** Protected paths the command created and Reasonix moved aside. */
      violations: GuardReport["violations"];
      /** Other notes for the user (see GuardReport.notes). */
      notes: string[];
    }
  | { ok: false; refusal: SandboxRefusal };

/** Run argv (no shell) under the sandbox. */
export async function runSandboxed(argv: string[], opts: RunOptions): Promise<RunResult> {
  const wrapped = await wrapCommand(argv, opts);
  if (!wrapped.ok) return wrapped;
  let t0 = traceStart();
  const started = performance.now();
  const limit = opts.maxOutputBytes ?? 1 << 20;
  const unconfined = wrapped.backend === "unconfined";
  let proc;
  try {
    proc = Bun.spawn(wrapped.argv, {
      cwd: wrapped.cwd,
      env: wrapped.env,
      stdio: [opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin), "pipe", "pipe", ...wrapped.fds],
      // Unconfined commands get their own process group so a timeout can kill
      // what they started; under bwrap the PID namespace does that.
      detached: unconfined,
    });
  } catch (e) {
    wrapped.finish();
    throw e;
  }
  traceStep("bash:spawn", t0);
  let timedOut = false;
  let aborted = false;
  const kill = () => {
    try {
      if (unconfined && proc.pid) process.kill(-proc.pid, "SIGKILL");
      else proc.kill("SIGKILL");
    } catch {
      proc.kill("SIGKILL");
    }
  };
  wrapped.killWith(kill);
  const timer = opts.timeoutMs ? setTimeout(() => ((timedOut = true), kill()), opts.timeoutMs) : undefined;
  const onAbort = () => ((aborted = true), kill());
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  const parts = { stdout: "", stderr: "", output: "" };
  let kept = 0;
  let truncated = false;
  const pump = async (stream: ReadableStream<Uint8Array>, name: "stdout" | "stderr") => {
    const dec = new TextDecoder();
    for await (const chunk of stream) {
      const text = dec.decode(chunk, { stream: true });
      opts.onOutput?.(text, name);
      if (kept >= limit) {
        truncated = true;
        continue;
      }
      const piece = text.length + kept > limit ? text.slice(0, limit - kept) : text;
      if (piece.length < text.length) truncated = true;
      kept += piece.length;
      parts[name] += piece;
      parts.output += piece;
    }
  };
  const pumps = Promise.all([pump(proc.stdout, "stdout"), pump(proc.stderr, "stderr")]);
  const exitCode = await proc.exited;
  traceStep("bash:exit", t0);
  t0 = traceStart();
  // An unconfined command may leave a background child holding the pipes
  // open; do not wait for it. (Under bwrap everything is dead by now.)
  let drained = false;
  await Promise.race([pumps.then(() => (drained = true)), Bun.sleep(250)]);
  if (!drained) {
    for (const s of [proc.stdout, proc.stderr]) s.cancel().catch(() => {});
  }
  if (unconfined && (timedOut || aborted)) kill();
  if (timer) clearTimeout(timer);
  opts.signal?.removeEventListener("abort", onAbort);
  traceStep("bash:output", t0);
  t0 = traceStart();
  const guard = wrapped.finish();
  traceStep("bash:git-check", t0);
  return {
    ok: true,
    backend: wrapped.backend,
    exitCode: proc.signalCode ? null : exitCode,
    signalCode: proc.signalCode == null ? null : String(proc.signalCode),
    ...parts,
    timedOut,
    aborted,
    truncated,
    durationMs: performance.now() - started,
    violations: guard.violations,
    notes: guard.notes ?? [],
  };
}

/** The shell used for command strings: bash when present, else sh. */
export function defaultShell(platform: NodeJS.Platform = process.platform): string[] {
  if (platform === "win32") return [process.env.ComSpec || "cmd.exe", "/d", "/s", "/c"];
  return [existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh", "-c"];
}

/** Run a shell command string under the sandbox (the bash tool's entry point). */
export function runShell(command: string, opts: RunOptions): Promise<RunResult> {
  return runSandboxed([...defaultShell(opts.platform), command], opts);
}
