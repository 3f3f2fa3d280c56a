// ACP: pausing a goal while its /goal request is open — through the
// _reasonix.io/session/goal extension (announced in initialize) and through a
// second session/prompt `/goal pause|status`; the open request then ends with
// end_turn after the running turn, the goal paused by the user. SDK client.
import { afterEach, expect, test } from "bun:test";
import { GOAL_METHOD } from "../goal.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const report = (status: string, evidence: string) => ({ name: "update_goal", arguments: { status, evidence } });

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0]) {
  const llm = await startScriptedOpenAI(steps);
  const env = makeAcpEnv(llm.url);
  const c = connect(env);
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  const init = await c.conn.initialize(initParams({}));
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  /** Bounded wait until the scripted model has seen n requests. */
  const requests = async (n: number) => {
    for (let i = 0; i < 800 && llm.chatRequests().length < n; i++) await Bun.sleep(25);
    expect(llm.chatRequests().length).toBeGreaterThanOrEqual(n);
  };
  return { llm, c, init, s, requests };
}

test("the goal extension: announced; pause during the open /goal request lands after the running turn; resume completes", async () => {
  // The first turn's answer waits until the pause has been asked for.
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  const { llm, c, init, s, requests } = await setup([
    { toolCalls: [report("continue", "first half")], until: held },
    { text: "half way" },
    { toolCalls: [report("complete", "second half done")] },
    { text: "all done" },
  ]);
  expect((init.agentCapabilities?._meta as any)["reasonix.io"].sessionGoal).toEqual({ method: GOAL_METHOD, actions: ["pause", "status", "clear"] });
  const running = c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal finish both halves" }] });
  await requests(1);

  const status = await c.conn.extMethod(GOAL_METHOD, { sessionId: s.sessionId, action: "status" });
  expect(status).toMatchObject({ running: true, goal: { status: "active", objective: "finish both halves" } });
  const paused = await c.conn.extMethod(GOAL_METHOD, { sessionId: s.sessionId, action: "pause" });
  expect(paused).toMatchObject({ running: true, goal: { status: "active" }, lines: [expect.stringContaining("pauses when the running turn ends")] });
  release();

  // The running turn finishes (both of its requests), then the request ends: paused by the user, not cancelled.
  expect((await running).stopReason).toBe("end_turn");
  expect(llm.chatRequests()).toHaveLength(2);
  expect(c.editor.text(s.sessionId)).toContain("half way");
  expect(c.editor.text(s.sessionId)).toContain("[goal paused: paused by the user]");
  const after = await c.conn.extMethod(GOAL_METHOD, { sessionId: s.sessionId, action: "status" });
  expect(after).toMatchObject({ running: false, goal: { status: "paused", pauseCode: "user", turns: 1 } });

  // Nothing to pause now: a clear error. Start and resume are not this method's.
  await expect(c.conn.extMethod(GOAL_METHOD, { sessionId: s.sessionId, action: "pause" })).rejects.toMatchObject({ code: -32600, message: expect.stringContaining("the goal is paused, not running") });
  await expect(c.conn.extMethod(GOAL_METHOD, { sessionId: s.sessionId, action: "resume" })).rejects.toMatchObject({ code: -32602 });
  await expect(c.conn.extMethod(GOAL_METHOD, { action: "status" })).rejects.toMatchObject({ code: -32602 });

  const resumed = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal resume" }] });
  expect(resumed.stopReason).toBe("end_turn");
  expect(c.editor.text(s.sessionId)).toContain("[goal complete: second half done]");
  expect(llm.chatRequests()).toHaveLength(4);
});

test("a second session/prompt /goal status or /goal pause during a running goal is answered at once; other prompts are still refused", async () => {
  // The first turn's answer waits until the pause has been asked for.
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  const { llm, c, s, requests } = await setup([
    { toolCalls: [report("continue", "step one")], until: held },
    { text: "step one done" },
  ]);
  const running = c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal do the steps" }] });
  await requests(1);
  await expect(c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "something else" }] })).rejects.toMatchObject({ message: expect.stringContaining("already running") });
  expect((await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal status" }] })).stopReason).toBe("end_turn");
  expect(c.editor.text(s.sessionId)).toContain("status: active");
  expect((await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal pause" }] })).stopReason).toBe("end_turn");
  release();
  expect((await running).stopReason).toBe("end_turn");
  expect(llm.chatRequests()).toHaveLength(2);
  expect(c.editor.text(s.sessionId)).toContain("[goal paused: paused by the user]");
});
