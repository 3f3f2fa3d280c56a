// Goal-mode fixtures: an engine over the scripted LLM whose tool registry has
// the engine tests' real file tools plus todo_write and the goal tools.
import { writeFileSync } from "node:fs";
import { afterEach } from "bun:test";
import { join } from "node:path";
import { createEngine } from "../../engine/index.ts";
import { makeSandbox, providerConfig, testTools, type Sandbox } from "../../engine/tests/helpers.ts";
import type { Engine, EngineEvent } from "../../engine/types.ts";
import { startScriptedOpenAI, type RecordedRequest } from "../../testing/scripted-llm.ts";
import { todoWriteTool } from "../../tools/builtin/todo.ts";
import { completeStepTool, updateGoalTool } from "../tools.ts";

export function goalEngine(sb: Sandbox, url: string, agent: Record<string, unknown> = {}): Engine {
  writeFileSync(join(sb.home, ".env"), "SCRIPTED_KEY=sk-test-123\n", { mode: 0o600 });
  const tools = testTools();
  for (const t of [todoWriteTool, updateGoalTool, completeStepTool]) tools.register(t);
  const config = providerConfig(url);
  config.agent = { max_steps: 20, compact_ratio: 0.8, ...agent };
  return createEngine({ workspace: sb.workspace, home: sb.home, config, tools, retry: { baseDelayMs: 5, maxDelayMs: 20 }, permissionMode: "auto", mcp: false });
}

/** A scripted update_goal call. */
export const report = (status: "continue" | "complete" | "blocked", evidence: string, unverified?: string[]) => ({
  name: "update_goal",
  arguments: { status, evidence, ...(unverified ? { completion: { unverified } } : {}) },
});

/** The evaluator's request carries no tools; goal turns carry the session's tool block. */
export const isEvaluator = (r: RecordedRequest) => !r.body?.tools || r.body.tools.length === 0;

const cleanups: (() => unknown)[] = [];
/** Call once at the top of a test file: closes what rig() opened after each test. */
export function cleanupAfterEach(): void {
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
}

/** A scripted server, a goal engine and a fresh session recording its events. */
export async function rig(steps: Parameters<typeof startScriptedOpenAI>[0], agent: Record<string, unknown> = {}) {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI(steps);
  const engine = goalEngine(sb, llm.url, agent);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  const events: EngineEvent[] = [];
  s.subscribe((e) => events.push(e));
  return { sb, llm, engine, s, events };
}
