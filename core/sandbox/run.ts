// Running a command under the sandbox: spawn what wrapCommand built, bound the
// output, time out or abort, and report what the guards found afterwards.
import { existsSync } from "node:fs";
import type { SandboxBackend } from "./probe.ts";
import type { GuardReport } from "./layout.ts";
import { traceStart, traceStep } from "../trace.ts";
import { wrapCommand, type SandboxOptions, type SandboxRefusal } from "./wrap.ts";

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
  /** Awaited after the sandbox is built and before the command starts (the session log's flush); a rejection starts nothing. */
  beforeSpawn?: Promise<void>;
  /** After the command exited, how long to wait for its pipes to drain (an unconfined background child may hold them). Default 250 ms. */
  drainGraceMs?: number;
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
  if (opts.beforeSpawn) {
    try {
      await opts.beforeSpawn;
    } catch (e) {
      wrapped.finish();
      throw e;
    }
    traceStep("bash:log", t0);
    t0 = traceStart();
  }
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
  // The grace timer is cleared once the pipes drain: left running it kept the process alive for its
  // whole length after the last command (a one-shot `run` exited 250 ms late).
  let drained = false;
  let grace: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([pumps.then(() => (drained = true)), new Promise<void>((resolve) => (grace = setTimeout(resolve, opts.drainGraceMs ?? 250)))]);
  clearTimeout(grace);
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
