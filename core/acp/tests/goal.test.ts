// ACP: /goal is announced; a /goal prompt keeps the request open while the
// goal drives turns (streamed as usual, plus goal lines) and ends with
// end_turn when it completes; session/cancel pauses it; /goal resume continues;
// goal turns show as one line.
import { afterEach, expect, test } from "bun:test";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const report = (status: string, evidence: string) => ({ name: "update_goal", arguments: { status, evidence } });

test("/goal over ACP: runs to complete in one prompt request; cancel pauses; resume completes", async () => {
  const llm = await startScriptedOpenAI([
    { toolCalls: [report("continue", "first half")] },
    { text: "half way" },
    { toolCalls: [report("complete", "second half done")] },
    { text: "all done" },
    // second goal: its first turn hangs until cancelled
    { text: "slow", delayMs: 30_000 },
    { toolCalls: [report("complete", "finished after resume")] },
    { text: "resumed and done" },
  ]);
  const env = makeAcpEnv(llm.url);
  const c = connect(env);
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  await c.conn.initialize(initParams({}));
  const since = c.editor.mark();
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await c.editor.waitFor((u) => u.update.sessionUpdate === "available_commands_update", since);
  const cmds = c.editor.updates.find((u) => u.update.sessionUpdate === "available_commands_update")!;
  expect((cmds.update as { availableCommands: { name: string }[] }).availableCommands.map((x) => x.name)).toContain("goal");

  const r = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal finish both halves" }] });
  expect(r.stopReason).toBe("end_turn");
  let shown = c.editor.text(s.sessionId);
  expect(shown).toContain("[goal started: finish both halves]");
  expect(shown).toContain("half way");
  expect(shown).toContain("[goal complete: second half done]");
  expect(llm.chatRequests()).toHaveLength(4);

  const status = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal status" }] });
  expect(status.stopReason).toBe("end_turn");
  expect(c.editor.text(s.sessionId)).toContain("status: complete");
  await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal clear" }] });

  const running = c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal a slow one" }] });
  for (let i = 0; i < 400 && llm.chatRequests().length < 5; i++) await Bun.sleep(25);
  await c.conn.cancel({ sessionId: s.sessionId });
  expect((await running).stopReason).toBe("cancelled");
  expect(c.editor.text(s.sessionId)).toContain("[goal paused: the goal turn was cancelled");
  const resumed = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/goal resume" }] });
  expect(resumed.stopReason).toBe("end_turn");
  shown = c.editor.text(s.sessionId);
  expect(shown).toContain("[goal complete: finished after resume]");
  expect(shown).not.toContain("[Goal mode]");
});
