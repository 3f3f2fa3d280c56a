// Two scripted servers: one plays the executor, the other the Guardian.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEngine } from "../../engine/index.ts";
import type { Engine, EngineEvent, EngineSession, PermissionMode } from "../../engine/types.ts";
import { startScriptedOpenAI, type ScriptStep, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { makeSandbox, type Sandbox } from "../../engine/tests/helpers.ts";

export interface Pair {
  sb: Sandbox;
  exec: ScriptedServer;
  guard: ScriptedServer;
  engine: Engine;
  close(): Promise<void>;
}

export const verdict = (risk: string, user_authorization: string, reason: string): ScriptStep => ({ text: JSON.stringify({ risk, user_authorization, reason }) });

/** `prices`: per-million prices of each entry (the executor's "exec", the reviewer's "guard"). */
type PairOptions = { guardian?: Record<string, unknown>; deny?: string[]; allow?: string[]; mode?: PermissionMode; prices?: Record<string, Record<string, unknown>> };

export function pairConfig(execUrl: string, guardUrl: string, extra: PairOptions = {}): Record<string, unknown> {
  const priced = (name: string) => (extra.prices?.[name] ? { prices: extra.prices[name] } : {});
  return {
    default_model: "exec",
    providers: [
      { name: "exec", kind: "openai", base_url: execUrl, model: "exec-model", api_key_env: "SCRIPTED_KEY", ...priced("exec") },
      { name: "guard", kind: "openai", base_url: guardUrl, model: "guard-model", api_key_env: "SCRIPTED_KEY", ...priced("guard") },
    ],
    agent: { max_steps: 10, compact_ratio: 0.8 },
    permissions: { mode: extra.mode ?? "auto", allow: extra.allow ?? [], ask: [], deny: extra.deny ?? [] },
    tools: {},
    // The OS sandbox is another area's concern; these tests are about the gate.
    sandbox: { bash: "off" },
    guardian: { enabled: true, model: "guard", timeout_seconds: 10, ...(extra.guardian ?? {}) },
  };
}

export async function startPair(execSteps: ScriptStep[], guardSteps: ScriptStep[], o: PairOptions & { headless?: boolean } = {}): Promise<Pair> {
  const sb = makeSandbox();
  const exec = await startScriptedOpenAI(execSteps);
  const guard = await startScriptedOpenAI(guardSteps);
  writeFileSync(join(sb.home, ".env"), "SCRIPTED_KEY=sk-test\n", { mode: 0o600 });
  const mode = o.mode ?? "auto";
  const engine = createEngine({
    workspace: sb.workspace,
    home: sb.home,
    config: pairConfig(exec.url, guard.url, { ...o, mode }),
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    headless: o.headless ?? true,
    permissionMode: mode,
    mcp: false,
  });
  return {
    sb, exec, guard, engine,
    async close() {
      await engine.close();
      await exec.close();
      await guard.close();
      sb.cleanup();
    },
  };
}

/** Collect events; answer each approval_request with the next decision (bounded: an unexpected one is refused). */
export function answering(s: EngineSession, decisions: ("once" | "deny")[] = []): EngineEvent[] {
  const events: EngineEvent[] = [];
  s.subscribe((e) => {
    events.push(e);
    if (e.type === "approval_request") queueMicrotask(() => s.approve(e.callId, decisions.shift() ?? "deny"));
  });
  return events;
}

export const toolResults = (evs: EngineEvent[]) => evs.filter((e): e is Extract<EngineEvent, { type: "tool_result" }> => e.type === "tool_result");
export const approvals = (evs: EngineEvent[]) => evs.filter((e): e is Extract<EngineEvent, { type: "approval_request" }> => e.type === "approval_request");
export const bashCall = (command: string) => ({ toolCalls: [{ name: "bash", arguments: { command } }] });
