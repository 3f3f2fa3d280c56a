/**
 * Running hooks (Claude Code compatible): the event goes to the command as
 * JSON on stdin. Exit 0 is success (stdout may be JSON: `decision`
 * block/approve, `reason`, `additionalContext`, or Claude Code's
 * `hookSpecificOutput`); exit 2 blocks, with stderr as the reason; any other
 * exit, a timeout or a sandbox refusal is a failure that is reported — and
 * for PreToolUse blocks the call (fail closed). Hooks run like the bash tool:
 * in the OS sandbox, with credentials scrubbed from the environment.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getDotted } from "../config/load.ts";
import { errorMessage } from "../errors.ts";
import { homePaths } from "../home.ts";
import type { PathPolicy } from "../policy/paths.ts";
import { runShell, type SandboxMode } from "../sandbox/index.ts";
import { savedCredentialNames } from "../sandbox/env.ts";
import { matches, type HookDef, type HookEvent } from "./config.ts";

const MAX_OUTPUT = 64 * 1024;

export interface HookEnv {
  workspace: string;
  config: Record<string, unknown>;
  policy: PathPolicy;
  home?: string;
}

export interface HookOutcome {
  /** A hook blocked: the reason (goes to the model for PreToolUse, to the user for UserPromptSubmit). */
  block?: string;
  /** A PreToolUse hook approved the call (never beats a deny rule). */
  approve?: boolean;
  /** Text hooks want added to the conversation (UserPromptSubmit, SessionStart, PostToolUse). */
  context: string[];
  /** Hook failures, one sentence each. */
  failures: string[];
}

interface Verdict {
  decision?: "block" | "approve";
  reason?: string;
  context?: string;
}

function parseStdout(stdout: string): Verdict | undefined {
  const t = stdout.trim();
  if (!t.startsWith("{")) return undefined;
  try {
    const j = JSON.parse(t) as Record<string, any>;
    const hso = (j.hookSpecificOutput ?? {}) as Record<string, any>;
    const perm = hso.permissionDecision as string | undefined;
    const decision = j.decision === "block" || perm === "deny" ? "block" : j.decision === "approve" || perm === "allow" ? "approve" : undefined;
    const reason = (j.reason ?? hso.permissionDecisionReason ?? j.stopReason) as string | undefined;
    const context = (hso.additionalContext ?? j.additionalContext) as string | undefined;
    return { ...(decision ? { decision } : {}), ...(reason ? { reason: String(reason) } : {}), ...(context ? { context: String(context) } : {}) };
  } catch {
    return undefined;
  }
}

const label = (d: HookDef) => `${d.event} hook \`${d.command.slice(0, 80)}\` (${d.source})`;

/** Run one hook; never throws. */
export async function runHook(def: HookDef, payload: Record<string, unknown>, env: HookEnv, signal?: AbortSignal): Promise<HookOutcome> {
  const out: HookOutcome = { context: [], failures: [] };
  const failClosed = def.event === "PreToolUse";
  const fail = (why: string) => {
    out.failures.push(`${label(def)} ${why}`);
    if (failClosed) out.block = `a PreToolUse hook could not decide (${why}), so the call was not run`;
    return out;
  };
  const mode = (getDotted(env.config, "sandbox.bash") ?? "enforce") as SandboxMode;
  let res;
  // A private TMPDIR for this run, removed afterwards.
  let tmp: string | undefined;
  try {
    tmp = mkdtempSync(join(tmpdir(), "reasonix-hook-"));
    res = await runShell(def.command, {
      policy: env.policy,
      mode: mode === "off" ? "off" : "enforce",
      network: getDotted(env.config, "sandbox.network") === true,
      envPassthrough: [],
      sessionTmpDir: tmp,
      cwd: env.workspace,
      timeoutMs: def.timeoutSeconds * 1000,
      signal,
      maxOutputBytes: MAX_OUTPUT,
      stdin: `${JSON.stringify(payload)}\n`,
      stripEnv: savedCredentialNames(env.config, homePaths(env.home).dotenv),
    });
  } catch (e) {
    return fail(`could not start: ${errorMessage(e)}`);
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
  if (!res.ok) return fail(`could not start: ${res.refusal.message}`);
  if (res.timedOut) return fail(`timed out after ${def.timeoutSeconds} s and was killed`);
  if (res.aborted) return fail("was cancelled");
  if (res.exitCode === 2) {
    out.block = res.stderr.trim() || res.stdout.trim() || `blocked by ${label(def)}`;
    return out;
  }
  if (res.exitCode !== 0) return fail(`failed (${res.signalCode ? `killed by ${res.signalCode}` : `exit code ${res.exitCode}`})${res.stderr.trim() ? `: ${res.stderr.trim().slice(0, 500)}` : ""}`);
  const v = parseStdout(res.stdout);
  if (v?.decision === "block") out.block = v.reason ?? `blocked by ${label(def)}`;
  if (v?.decision === "approve") out.approve = true;
  if (v?.context) out.context.push(v.context);
  // Plain stdout of a prompt or session-start hook is context, as in Claude Code.
  else if (!v && (def.event === "UserPromptSubmit" || def.event === "SessionStart") && res.stdout.trim()) out.context.push(res.stdout.trim());
  return out;
}

/** Run the hooks of one event in order (matching `tool` for tool events); the first block stops the rest. */
export async function runHooks(defs: HookDef[], event: HookEvent, payload: Record<string, unknown>, env: HookEnv, opts: { tool?: string; signal?: AbortSignal } = {}): Promise<HookOutcome> {
  const total: HookOutcome = { context: [], failures: [] };
  for (const d of defs) {
    if (d.notLoaded || d.event !== event) continue;
    if ((event === "PreToolUse" || event === "PostToolUse") && !matches(d.matcher, opts.tool)) continue;
    const r = await runHook(d, payload, env, opts.signal);
    total.context.push(...r.context);
    total.failures.push(...r.failures);
    if (r.approve) total.approve = true;
    if (r.block) {
      total.block = r.block;
      total.approve = false;
      break;
    }
  }
  return total;
}
