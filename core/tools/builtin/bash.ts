/**
 * bash: run one shell command in the workspace under the OS sandbox
 * (core/sandbox). The permission layer has already parsed and approved the
 * command; this tool only runs it, bounded in time and output.
 */
import { mkdirSync } from "node:fs";
import { getDotted } from "../../config/load.ts";
import { bashOutputLimit, bashTimeoutCap } from "../../config/limits.ts";
import { homePaths } from "../../home.ts";
import { runShell, type SandboxMode, type SandboxOptions } from "../../sandbox/index.ts";
import { savedCredentialNames } from "../../sandbox/env.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../types.ts";
import { bool, done, fail, guarded, int, policyFor, str } from "./common.ts";
import { traceStart, traceStep } from "../../trace.ts";

/** A model may ask for a longer timeout than configured, up to this (or the configured value if larger). */
const MAX_REQUESTED_TIMEOUT_S = 600;

interface Input { command: string; timeout_seconds?: number; description?: string; run_in_background?: boolean }

/**
 * Keeps the first and last halves of a stream of text, counting what falls
 * out of the middle: the start shows what ran, the end shows how it ended.
 */
export class HeadTail {
  private head = "";
  private tail = "";
  private dropped = 0;
  constructor(private readonly limit: number) {}

  push(chunk: string): void {
    const half = Math.floor(this.limit / 2);
    if (this.head.length < half) {
      const room = half - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk === "") return;
    this.tail += chunk;
    const keep = this.limit - half;
    if (this.tail.length > keep * 2) this.trim(keep);
  }

  private trim(keep: number): void {
    if (this.tail.length > keep) {
      this.dropped += this.tail.length - keep;
      this.tail = this.tail.slice(this.tail.length - keep);
    }
  }

  text(): string {
    this.trim(this.limit - Math.floor(this.limit / 2));
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n[… ${this.dropped} characters of output truncated …]\n${this.tail}`;
  }

  get truncated(): number {
    return this.dropped;
  }
}

/** Variables that make bash run code before the command itself (exported functions, BASH_ENV). */
function startupHooks(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter((k) => k === "BASH_ENV" || k === "ENV" || k === "PROMPT_COMMAND" || k.startsWith("BASH_FUNC_"));
}

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export function timeoutFor(input: Input, ctx: ToolContext): number {
  const cap = bashTimeoutCap(ctx.config);
  const requested = int(input, "timeout_seconds", { min: 1 });
  if (requested === undefined) return cap;
  if (cap === 0) return requested;
  return Math.min(requested, Math.max(cap, MAX_REQUESTED_TIMEOUT_S));
}

/** How bash commands are sandboxed, wherever they run (here, or an editor's terminal over ACP). */
export function bashSandboxOptions(ctx: ToolContext): SandboxOptions {
  const mode = (getDotted(ctx.config, "sandbox.bash") ?? "enforce") as SandboxMode;
  return {
    policy: policyFor(ctx),
    mode: mode === "off" ? "off" : "enforce",
    network: getDotted(ctx.config, "sandbox.network") === true,
    // Both user config only (the config loader keeps a project file from setting them).
    envPassthrough: stringList(getDotted(ctx.config, "sandbox.env_passthrough")),
    sshAgent: getDotted(ctx.config, "sandbox.ssh_agent") === true,
    sessionTmpDir: ctx.tmpDir,
    cwd: ctx.workspace,
    watchGit: true,
    stripEnv: [...savedCredentialNames(ctx.config, homePaths().dotenv), ...startupHooks(process.env)],
  };
}

/**
 * run_in_background: the same sandboxed command line, started as a job of the
 * session (core/tools/jobs.ts); the id comes back at once.
 */
async function startBackground(command: string, ctx: ToolContext): Promise<ToolResult> {
  if (!ctx.jobs) return fail("background jobs are not available here: run the command in the foreground");
  mkdirSync(ctx.tmpDir, { recursive: true, mode: 0o700 });
  let r: Awaited<ReturnType<NonNullable<ToolContext["jobs"]>["start"]>>;
  try {
    r = await ctx.jobs.start(command, bashSandboxOptions(ctx));
  } catch (e) {
    return fail(`the background job could not start under the sandbox (${(e as Error)?.message ?? e}). Fix: repair or reinstall the sandbox backend (bubblewrap on Linux), or set [sandbox] bash = "off" to run bash unconfined.`);
  }
  if (!r.ok) return fail(r.message);
  return done(`started background job ${r.job.id}. Read its new output with bash_output {"job_id": "${r.job.id}"}; stop it with bash_kill. It runs until it ends, is killed, or the session closes.`);
}

export const bashTool: ToolDefinition<Input> = {
  name: "bash",
  description:
    "Run a shell command (bash -c) in the workspace. Output is stdout and stderr interleaved, capped in the middle when long. Runs inside the OS sandbox when enabled: writes only inside the workspace and allowed roots, network only if configured. $TMPDIR is private to this session. Prefer the file tools for reading, searching and editing files. With run_in_background the command runs as a job of the session under the same sandbox and rules, and the call returns its id at once.",
  inputSchema: {
    type: "object",
    properties: {
      command: { type: "string", description: "the command line" },
      timeout_seconds: { type: "integer", minimum: 1, description: "kill the command after this many seconds (default from config, 120)" },
      description: { type: "string", description: "a few words on what the command does, shown to the user" },
      run_in_background: { type: "boolean", description: "start it as a background job (dev servers, watchers, long builds) and return its job id at once; read it with bash_output, stop it with bash_kill" },
    },
    required: ["command"],
    additionalProperties: false,
  },
  kind: "bash",
  // The session log's flush runs while the sandbox is built; the command starts once it is done.
  awaitsLogItself: true,
  // A background job says so where it is approved and listed.
  summarize: (i) => `bash${i?.run_in_background === true ? " (background)" : ""}: ${String(i?.command ?? "").replace(/\s*\n\s*/g, " ⏎ ").slice(0, 200)}`,
  run: guarded(async (input, ctx) => {
    const command = str(input, "command");
    // Set when the session log could not be flushed: then nothing runs.
    let logFailed: unknown;
    const logSynced = ctx.logSynced?.catch((e: unknown) => {
      logFailed = e;
      throw e;
    });
    logSynced?.catch(() => {}); // awaited below where the command would start; handled on every other path
    const unlogged = () => fail(`not run: the session log could not be written to disk (${(logFailed as Error)?.message ?? logFailed})`);
    if (bool(input, "run_in_background")) {
      try {
        await logSynced;
      } catch {
        return unlogged();
      }
      return startBackground(command, ctx);
    }
    const timeoutS = timeoutFor(input, ctx);
    const limit = bashOutputLimit(ctx.config);
    const mode = (getDotted(ctx.config, "sandbox.bash") ?? "enforce") as SandboxMode;
    mkdirSync(ctx.tmpDir, { recursive: true, mode: 0o700 });
    const collected = new HeadTail(limit);
    let res: Awaited<ReturnType<typeof runShell>>;
    const t0 = traceStart();
    const sandboxOptions = bashSandboxOptions(ctx);
    traceStep("bash:options", t0);
    try {
      res = await runShell(command, {
        ...sandboxOptions,
        timeoutMs: timeoutS * 1000,
        signal: ctx.signal,
        // Output is kept here (head and tail); the runner keeps none.
        maxOutputBytes: 0,
        onOutput: (chunk) => collected.push(chunk),
        ...(logSynced ? { beforeSpawn: logSynced } : {}),
      });
    } catch (e) {
      if (logFailed !== undefined) return unlogged();
      // A backend that is present but cannot even start must refuse, never fall back to unconfined.
      const why = (e as Error)?.message ?? String(e);
      if (mode === "off") return fail(`bash could not start: ${why}`);
      return fail(`bash is sandboxed (sandbox.bash = "enforce") but the sandbox could not start (${why}). Fix: repair or reinstall the sandbox backend (bubblewrap on Linux), or set [sandbox] bash = "off" to run bash unconfined.`);
    }
    if (!res.ok) return fail(res.refusal.message);
    const notes: string[] = [];
    if (res.timedOut) notes.push(`[timed out after ${timeoutS} s; the command was killed]`);
    else if (res.aborted) notes.push("[cancelled; the command was killed]");
    else if (res.signalCode) notes.push(`[killed by ${res.signalCode}]`);
    else if (res.exitCode !== 0) notes.push(`[exit code ${res.exitCode}]`);
    for (const v of res.violations) notes.push(`[sandbox: the command created protected ${v.path}; it was moved aside to ${v.movedTo}]`);
    for (const n of res.notes) notes.push(`[sandbox: ${n}]`);
    let text = collected.text().replace(/\n$/, "");
    if (text === "" && notes.length === 0) text = "(no output)";
    const output = [text, ...notes].filter((s) => s !== "").join("\n");
    return res.exitCode === 0 && !res.timedOut && !res.aborted ? done(output) : { ok: false, output };
  }),
};
