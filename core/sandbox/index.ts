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
 *
 * This file is the entry point: wrap.ts builds the confined command, run.ts
 * spawns it and collects the output.
 */
export { childEnv, isCredentialName } from "./env.ts";
export { probeSandbox, resetSandboxProbe, type SandboxStatus } from "./probe.ts";
export { gitGuardAfterWrite, gitGuardAtStart } from "./git-guard.ts";
export { createSessionTmpDir, removeSessionTmpDir, sessionTmpParent } from "./tmp.ts";
export { listProfiles, getProfile } from "./profiles.ts";
export { wrapCommand, type SandboxMode, type SandboxOptions, type SandboxRefusal, type WrappedCommand } from "./wrap.ts";
export { defaultShell, runSandboxed, runShell, type RunOptions, type RunResult } from "./run.ts";
