// Two scripted servers: one plays the executor, the other the planner.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEngine } from "../../engine/index.ts";
import type { Engine } from "../../engine/types.ts";
import { startScriptedOpenAI, type ScriptStep, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { makeSandbox, testTools, type Sandbox } from "../../engine/tests/helpers.ts";

export interface Setup { sb: Sandbox; exec: ScriptedServer; plan: ScriptedServer; engine: Engine; close(): Promise<void> }

export async function setup(execSteps: ScriptStep[], planSteps: ScriptStep[], o: { headless?: boolean; planner?: boolean; builtinTools?: boolean } = {}): Promise<Setup> {
  const sb = makeSandbox();
  const exec = await startScriptedOpenAI(execSteps);
  const plan = await startScriptedOpenAI(planSteps);
  writeFileSync(join(sb.home, ".env"), "SCRIPTED_KEY=sk-test\n", { mode: 0o600 });
  writeFileSync(join(sb.workspace, "notes.txt"), "say hello\n");
  writeFileSync(join(sb.workspace, "AGENTS.md"), "Project rule: keep files small.\n");
  const engine = createEngine({
    workspace: sb.workspace,
    home: sb.home,
    config: {
      default_model: "exec",
      providers: [
        { name: "exec", kind: "openai", base_url: exec.url, model: "exec-model", api_key_env: "SCRIPTED_KEY" },
        { name: "planner", kind: "openai", base_url: plan.url, model: "plan-model", api_key_env: "SCRIPTED_KEY" },
      ],
      agent: { max_steps: 10, compact_ratio: 0.8, ...(o.planner === false ? {} : { planner_model: "planner" }) },
      permissions: { mode: "auto", allow: [], ask: [], deny: [] },
      tools: {},
      // With the built-in bash the subject is the read-only wrapper, not the OS sandbox (no bwrap needed).
      sandbox: o.builtinTools ? { bash: "off" } : {},
    },
    ...(o.builtinTools ? {} : { tools: testTools() }),
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 1 },
    headless: o.headless ?? true,
    permissionMode: "auto",
    mcp: false,
  });
  return {
    sb, exec, plan, engine,
    async close() {
      await engine.close();
      await exec.close();
      await plan.close();
      sb.cleanup();
    },
  };
}
