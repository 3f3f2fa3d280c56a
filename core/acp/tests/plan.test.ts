// ACP: the planner's plan reaches the editor as ACP's native `plan` update
// (one pending entry per step) plus the plan as an agent message; a plan
// that waits for approval is answered through session/request_permission;
// session/load replays the plan. Real SDK client, two scripted servers.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { startScriptedOpenAI, type ScriptStep } from "../../testing/scripted-llm.ts";
import { UpdateTranslator } from "../updates.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PLAN = { summary: "Write hello.txt.", steps: ["check the workspace", "write hello.txt"], verified_touchpoints: [], candidate_touchpoints: ["hello.txt"], non_goals: [], risks: [], acceptance_criteria: ["hello.txt says hi"], verification_commands: ["cat hello.txt"] };
const submit: ScriptStep = { toolCalls: [{ name: "submit_plan", arguments: PLAN }] };
const writeHello: ScriptStep = { toolCalls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hi" } }] };

async function setup(execSteps: ScriptStep[], planSteps: ScriptStep[]) {
  const exec = await startScriptedOpenAI(execSteps);
  const plan = await startScriptedOpenAI(planSteps);
  const env = makeAcpEnv(exec.url, ["[[providers]]", 'name = "planner"', 'kind = "openai"', `base_url = "${plan.url}"`, 'model = "plan-model"', 'api_key_env = "SCRIPTED_KEY"', "[agent]", 'planner_model = "planner"', "[permissions]", 'mode = "auto"'].join("\n"));
  const c = connect(env);
  cleanups.push(() => env.cleanup(), () => exec.close(), () => plan.close(), () => c.close());
  await c.conn.initialize(initParams({}));
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  return { exec, plan, env, c, s };
}

const planUpdates = (updates: acp.SessionNotification[]) => updates.map((u) => u.update).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: "plan" }> => u.sessionUpdate === "plan");

test("plan first: a native plan update with the steps, the plan as a message, then the executor's work", async () => {
  const { c, s, env } = await setup([writeHello, { text: "Wrote hello.txt." }], [submit]);
  const r = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "plan first, then write hello.txt" }] });
  expect(r.stopReason).toBe("end_turn");
  expect(readFileSync(join(env.workspace, "hello.txt"), "utf8")).toBe("hi");
  const plans = planUpdates(c.editor.updates);
  expect(plans).toHaveLength(1);
  expect(plans[0]!.entries).toEqual([
    { content: "check the workspace", priority: "high", status: "pending" },
    { content: "write hello.txt", priority: "high", status: "pending" },
  ]);
  const shown = c.editor.text(s.sessionId);
  expect(shown).toContain("## Plan\nWrite hello.txt.");
  expect(shown.indexOf("## Plan")).toBeLessThan(shown.indexOf("Wrote hello.txt."));

  // session/load replays the plan the same way.
  await c.conn.closeSession({ sessionId: s.sessionId });
  const before = c.editor.updates.length;
  await c.conn.loadSession({ sessionId: s.sessionId, cwd: env.workspace, mcpServers: [] });
  const replayed = c.editor.updates.slice(before);
  expect(planUpdates(replayed).map((p) => p.entries.length)).toEqual([2]);
  expect(replayed.some((u) => u.update.sessionUpdate === "agent_message_chunk" && (u.update.content as { text: string }).text.includes("## Plan"))).toBe(true);
});

test("plan for approval: the editor is asked through session/request_permission; allowing starts the executor, rejecting runs nothing", async () => {
  const { c, s, env } = await setup([writeHello, { text: "Done." }], [submit, submit]);
  c.editor.answer = "allow_once";
  const ok = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "plan it and wait for my approval: write hello.txt" }] });
  expect(ok.stopReason).toBe("end_turn");
  expect(c.editor.permissionRequests).toHaveLength(1);
  expect(c.editor.permissionRequests[0]!.toolCall.title ?? "").toMatch(/Write hello.txt/);
  expect(existsSync(join(env.workspace, "hello.txt"))).toBe(true);
  expect(planUpdates(c.editor.updates)).toHaveLength(1);

  c.editor.answer = "reject_once";
  const before = c.editor.updates.length;
  const no = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "plan it and wait for my approval: write hello.txt again" }] });
  expect(no.stopReason).toBe("end_turn");
  expect(c.editor.permissionRequests).toHaveLength(2);
  expect(planUpdates(c.editor.updates.slice(before))).toHaveLength(1);
});

test("plan only: the native plan update and the plan once, as the answer", async () => {
  const { c, s, exec, env } = await setup([], [submit]);
  const r = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "plan only: write hello.txt" }] });
  expect(r.stopReason).toBe("end_turn");
  expect(planUpdates(c.editor.updates)).toHaveLength(1);
  const shown = c.editor.text(s.sessionId);
  expect(shown.split("## Plan").length - 1).toBe(1);
  expect(exec.chatRequests()).toHaveLength(0);
  // Replayed: the stored answer is the plan; it is not shown twice.
  await c.conn.closeSession({ sessionId: s.sessionId });
  const before = c.editor.updates.length;
  await c.conn.loadSession({ sessionId: s.sessionId, cwd: env.workspace, mcpServers: [] });
  const again = c.editor.updates.slice(before).filter((u) => u.update.sessionUpdate === "agent_message_chunk").map((u) => (u.update as { content: { text: string } }).content.text).join("");
  expect(again.split("## Plan").length - 1).toBe(1);
  expect(planUpdates(c.editor.updates.slice(before))).toHaveLength(1);
});

test("a Guardian review is a line in the thought stream, live and replayed", () => {
  const t = new UpdateTranslator("/ws");
  const e = { type: "guardian", callId: "c", name: "bash", summary: "bash: rm -rf x", outcome: "deny", risk: "critical", authorization: "unknown", reason: "deletes data" } as const;
  const line = "\n[reviewed by Guardian: denied bash: rm -rf x (critical risk, authorization unknown): deletes data]\n";
  expect(t.live(e)).toEqual([{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: line } }]);
  expect(t.replay([e])).toEqual(t.live(e));
});
