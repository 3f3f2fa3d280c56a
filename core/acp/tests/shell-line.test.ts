// `!command` as an ACP prompt (the SDK's ClientSideConnection as the editor,
// real NDJSON streams, scripted model over loopback): the agent runs the shell
// line through the session — a permission request when the rules ask (ask
// mode), a bash tool call with its output — and the output reaches the model
// with the next prompt; while a prompt runs, a shell line is refused clearly.
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { pollFor } from "../../testing/fresh-wait.ts";
import { STEER_METHOD } from "../agent.ts";
import { acpTestRig } from "./helpers.ts";

const rig = acpTestRig();
const cleanups = rig.cleanups;

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0]) {
  const c = await rig.setup(steps);
  const s = await c.conn.newSession({ cwd: c.env.workspace, mcpServers: [] });
  return { ...c, s };
}

test("!ls: a permission request in ask mode, a bash tool call with the output, end_turn; session/load shows it again; the next prompt carries the output", async () => {
  const { conn, editor, env, llm, s } = await setup([{ text: "I see the marker." }]);
  writeFileSync(join(env.workspace, "marker-3307.txt"), "x\n");
  editor.answer = "allow_once";
  const res = await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "!ls" }] });
  expect(res.stopReason).toBe("end_turn");
  expect(editor.permissionRequests).toHaveLength(1);
  expect(JSON.stringify(editor.permissionRequests[0]!.toolCall)).toContain("ls");
  const updates = editor.updates.filter((u) => u.sessionId === s.sessionId).map((u) => u.update);
  const call = updates.find((u) => u.sessionUpdate === "tool_call") as { toolCallId: string; kind?: string };
  expect(call.kind).toBe("execute");
  const done = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === call.toolCallId && u.status === "completed");
  expect(JSON.stringify(done)).toContain("marker-3307.txt");
  // The line went to the shell, not to the model.
  expect(llm.chatRequests()).toHaveLength(0);
  // Kept in the session: session/load replays the call and its output, and the output still waits for the next prompt.
  await conn.closeSession({ sessionId: s.sessionId });
  const before = editor.updates.length;
  await conn.loadSession({ sessionId: s.sessionId, cwd: env.workspace, mcpServers: [] });
  const replayed = editor.updates.slice(before).map((u) => u.update);
  expect(replayed.some((u) => u.sessionUpdate === "tool_call" && JSON.stringify(u).includes('"command":"ls"'))).toBe(true);
  expect(JSON.stringify(replayed)).toContain("marker-3307.txt");
  expect((await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "what is there?" }] })).stopReason).toBe("end_turn");
  const last = llm.chatRequests()[0]!.body.messages.at(-1);
  expect(last.role).toBe("user");
  expect(last.content).toContain("$ ls\nmarker-3307.txt");
  expect(last.content.endsWith("what is there?")).toBe(true);
});

test("a refused !command (the user rejects it) never runs and never reaches the model", async () => {
  const { conn, editor, env, llm, s } = await setup([{ text: "ok" }]);
  editor.answer = "reject";
  expect((await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "!touch refused-5.txt" }] })).stopReason).toBe("end_turn");
  expect(existsSync(join(env.workspace, "refused-5.txt"))).toBe(false);
  const failed = editor.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
  expect(JSON.stringify(failed)).toContain("permission denied: the user refused");
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "hello" }] });
  expect(llm.chatRequests()[0]!.body.messages.at(-1)).toEqual({ role: "user", content: "hello" });
});

test("while a prompt runs, a !command prompt or steer is refused with a clear message and never runs", async () => {
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  cleanups.push(() => release());
  const { conn, env, llm, s } = await setup([{ text: "slow answer", until: held }]);
  const running = conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "take your time" }] });
  await pollFor("the held request", () => llm.chatRequests().length, (n) => n >= 1);
  const asPrompt = await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "!touch never-1.txt" }] }).catch((e) => e);
  expect(asPrompt.message).toContain("a turn is running: run the shell line when it ends");
  const asSteer = await conn.extMethod(STEER_METHOD, { sessionId: s.sessionId, prompt: [{ type: "text", text: "!touch never-2.txt" }] }).catch((e) => e);
  expect(asSteer.message).toContain("a turn is running: run the shell line when it ends");
  release();
  expect((await running).stopReason).toBe("end_turn");
  expect(existsSync(join(env.workspace, "never-1.txt"))).toBe(false);
  expect(existsSync(join(env.workspace, "never-2.txt"))).toBe(false);
  expect(llm.chatRequests()).toHaveLength(1);
});
