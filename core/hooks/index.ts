/**
 * The hooks of one session, as the agent loop calls them. Payloads follow
 * Claude Code's shape (`session_id`, `cwd`, `hook_event_name`, plus
 * `tool_name`/`tool_input`/`tool_response`, `prompt`, `source`, `reason`,
 * `trigger`). Failures are reported through `warn`, never dropped.
 */
import type { ToolResult } from "../tools/types.ts";
import type { HookDef, HookEvent } from "./config.ts";
import { runHooks, type HookEnv, type HookOutcome } from "./run.ts";

export { HOOK_EVENTS, loadHooks, matches, PROJECT_HOOKS_FILE, type HookDef, type HookEvent } from "./config.ts";
export { runHook, runHooks, type HookEnv, type HookOutcome } from "./run.ts";

/** What LiveSession needs from hooks (absent: no hooks). */
export interface SessionHooks {
  attach(s: { sessionId: string; warn(code: string, message: string): void }): void;
  preToolUse(tool: string, input: unknown, signal: AbortSignal): Promise<{ block?: string; approve?: boolean }>;
  postToolUse(tool: string, input: unknown, result: ToolResult, signal: AbortSignal): Promise<ToolResult>;
  /** Stop (`reason`), PreCompact (`trigger`), SessionEnd (`reason`). */
  fire(event: "Stop" | "PreCompact" | "SessionEnd", extra: Record<string, unknown>, signal?: AbortSignal): Promise<void>;
}

export class HookRunner implements SessionHooks {
  private sessionId = "";
  private warn: (code: string, message: string) => void = () => {};

  constructor(
    private readonly defs: HookDef[],
    private readonly env: HookEnv,
  ) {}

  get active(): boolean {
    return this.defs.some((d) => !d.notLoaded);
  }

  attach(s: { sessionId: string; warn(code: string, message: string): void }): void {
    this.sessionId = s.sessionId;
    this.warn = s.warn;
  }

  /** Run the hooks of an event; failures are reported, the outcome returned. */
  async run(event: HookEvent, extra: Record<string, unknown>, opts: { tool?: string; signal?: AbortSignal } = {}): Promise<HookOutcome> {
    if (!this.defs.some((d) => d.event === event && !d.notLoaded)) return { context: [], failures: [] };
    const payload = { session_id: this.sessionId, cwd: this.env.workspace, hook_event_name: event, ...extra };
    const out = await runHooks(this.defs, event, payload, this.env, opts);
    for (const f of out.failures) this.warn("hook_failed", f);
    return out;
  }

  async preToolUse(tool: string, input: unknown, signal: AbortSignal) {
    const r = await this.run("PreToolUse", { tool_name: tool, tool_input: input }, { tool, signal });
    return { ...(r.block ? { block: r.block } : {}), ...(r.approve ? { approve: true } : {}) };
  }

  async postToolUse(tool: string, input: unknown, result: ToolResult, signal: AbortSignal): Promise<ToolResult> {
    const r = await this.run("PostToolUse", { tool_name: tool, tool_input: input, tool_response: { ok: result.ok, output: result.output } }, { tool, signal });
    const notes = [...(r.block ? [`[PostToolUse hook: ${r.block}]`] : []), ...r.context.map((c) => `[PostToolUse hook: ${c}]`)];
    return notes.length ? { ...result, output: `${result.output}\n${notes.join("\n")}` } : result;
  }

  async fire(event: "Stop" | "PreCompact" | "SessionEnd", extra: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
    await this.run(event, extra, { signal });
  }
}
