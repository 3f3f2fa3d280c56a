// The SDK's own ClientSideConnection as a scripted editor against the agent on
// real NDJSON streams, with a scripted LLM over loopback HTTP.
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { STEER_METHOD } from "../agent.ts";
import { steerMessage } from "../../engine/session.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0], caps: acp.ClientCapabilities = {}, engine: Record<string, unknown> = {}) {
  const llm = await startScriptedOpenAI(steps);
  const env = makeAcpEnv(llm.url);
  const c = connect(env, undefined, engine);
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  const init = await c.conn.initialize(initParams(caps));
  return { llm, env, ...c, init };
}

test("initialize advertises v1, session lifecycle, embedded context and the steering method", async () => {
  const { init } = await setup([]);
  expect(init.protocolVersion).toBe(1);
  const caps = init.agentCapabilities!;
  expect(caps.loadSession).toBe(true);
  expect(Object.keys(caps.sessionCapabilities ?? {}).sort()).toEqual(["close", "delete", "list", "resume"]);
  expect(caps.promptCapabilities).toEqual({ image: false, audio: false, embeddedContext: true });
  expect(caps.mcpCapabilities).toEqual({ http: true, sse: true });
  expect((caps._meta as any)["reasonix.io"].sessionSteer.method).toBe("_reasonix.io/session/steer");
  expect(init.authMethods?.length).toBeGreaterThan(0);
});

test("a prompt streams message and thought chunks, usage, and ends with end_turn", async () => {
  const { conn, editor, env, frames } = await setup([{ reasoning: "thinking it over", text: "Hello from the scripted model." }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  expect(s.modes?.currentModeId).toBe("ask");
  expect(s.configOptions?.map((o) => o.id)).toEqual(["mode", "model", "reasoning_effort"]);
  const res = await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "say hello" }] });
  expect(res.stopReason).toBe("end_turn");
  expect(editor.text(s.sessionId)).toBe("Hello from the scripted model.");
  expect(editor.text(s.sessionId, "agent_thought_chunk")).toBe("thinking it over");
  expect(editor.kinds(s.sessionId).filter((k) => k === "agent_message_chunk").length).toBeGreaterThan(1);
  const usage = editor.updates.map((u) => u.update).find((u) => u.sessionUpdate === "usage_update") as any;
  expect(usage.used).toBeGreaterThan(0);
  expect(usage.size).toBe(64000); // the entry's context_window
  // Every update of the turn was written before the prompt's answer.
  const answer = frames.findIndex((f) => f.includes('"stopReason"'));
  const lastUpdate = frames.findLastIndex((f) => f.includes('"session/update"') && !f.includes("available_commands_update"));
  expect(lastUpdate).toBeLessThan(answer);
});

test("embedded resources and resource links reach the model as marked context", async () => {
  const { conn, env, llm } = await setup([{ text: "ok" }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await conn.prompt({
    sessionId: s.sessionId,
    prompt: [
      { type: "text", text: "explain this" },
      { type: "resource", resource: { uri: `file://${env.workspace}/a.ts`, text: "const x = 1;", mimeType: "text/typescript" } },
      { type: "resource_link", uri: `file://${env.workspace}/b.ts`, name: "b.ts" },
    ],
  });
  const user = llm.chatRequests()[0]!.body.messages.at(-1).content as string;
  expect(user).toContain("explain this");
  expect(user).toContain(`<context source="${env.workspace}/a.ts">\nconst x = 1;\n</context>`);
  expect(user).toContain(`[file: ${env.workspace}/b.ts]`);
});

test("a writer needing approval: request_permission carries the diff; allow runs it, reject refuses it", async () => {
  const { conn, editor, env } = await setup([
    { toolCalls: [{ name: "write_file", arguments: { path: "new.txt", content: "hello\n" } }] },
    { text: "written" },
    { toolCalls: [{ name: "write_file", arguments: { path: "other.txt", content: "nope\n" } }] },
    { text: "refused" },
  ]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  editor.answer = "allow_once";
  expect((await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "write it" }] })).stopReason).toBe("end_turn");
  expect(readFileSync(join(env.workspace, "new.txt"), "utf8")).toBe("hello\n");
  const req = editor.permissionRequests[0]!;
  expect(req.toolCall.kind).toBe("edit");
  expect(req.toolCall.locations).toEqual([{ path: join(env.workspace, "new.txt") }]);
  expect(req.toolCall.content).toEqual([{ type: "diff", path: join(env.workspace, "new.txt"), oldText: null, newText: "hello\n" }]);
  // Issue 27: the two "always" options (your config, this project) name the file each saves to.
  expect(req.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "allow_always", "allow_always", "reject_once"]);
  expect(req.options.map((o) => o.optionId)).toEqual(["allow_once", "allow_session", "allow_always", "allow_always_project", "reject"]);
  const done = editor.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed") as any;
  expect(done.content.some((c: any) => c.type === "diff")).toBe(true);

  editor.answer = "reject";
  expect((await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "write another" }] })).stopReason).toBe("end_turn");
  expect(existsSync(join(env.workspace, "other.txt"))).toBe(false);
  const failed = editor.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed") as any;
  expect(failed.content[0].content.text).toMatch(/permission denied: the user refused/);
});

test("a client that cannot answer permission requests fails closed", async () => {
  const { conn, editor, env } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }] }, { text: "gave up" }]);
  editor.answer = () => {
    throw new Error("no UI");
  };
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "write" }] });
  expect(existsSync(join(env.workspace, "x.txt"))).toBe(false);
});

test("session/cancel stops a running turn and the prompt answers cancelled", async () => {
  const { conn, editor, env } = await setup([{ text: "a long answer that never finishes", chunkSize: 4, stallAfter: 3 }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  const since = editor.mark();
  const p = conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "go" }] });
  await editor.waitFor((u) => u.update.sessionUpdate === "agent_message_chunk", since);
  await conn.cancel({ sessionId: s.sessionId });
  expect((await p).stopReason).toBe("cancelled");
});

test("finish reasons map to ACP stop reasons: length → max_tokens, refusal → refusal, step limit → max_turn_requests", async () => {
  const { conn, env } = await setup(
    [
      { text: "", finishReason: "length" },
      { text: "I can't help with that.", finishReason: "content_filter" },
      { toolCalls: [{ name: "ls", arguments: {} }] },
    ],
    {},
    { maxSteps: 1 },
  );
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  const ask = async () => (await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "x" }] })).stopReason;
  expect(await ask()).toBe("max_tokens");
  expect(await ask()).toBe("refusal");
  expect(await ask()).toBe("max_turn_requests");
});

test("session/load replays the stored conversation in order before answering; list, close and delete", async () => {
  const { conn, editor, env, frames } = await setup([
    { text: "reading", toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
    { text: "it says hi" },
  ]);
  writeFileSync(join(env.workspace, "a.txt"), "hi\n");
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "what is in a.txt?" }] });
  await conn.closeSession({ sessionId: s.sessionId });

  const before = editor.updates.length;
  const framesBefore = frames.length;
  await conn.loadSession({ sessionId: s.sessionId, cwd: env.workspace, mcpServers: [] });
  const replayed = editor.updates.slice(before).map((u) => u.update).filter((u) => u.sessionUpdate !== "available_commands_update");
  expect(replayed.map((u) => u.sessionUpdate)).toEqual(["user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]);
  expect((replayed[0] as any).content.text).toBe("what is in a.txt?");
  expect((replayed[2] as any).locations).toEqual([{ path: join(env.workspace, "a.txt") }]);
  expect((replayed[4] as any).content.text).toBe("it says hi");
  // The replay precedes the load answer on the wire.
  const mine = frames.slice(framesBefore);
  const answer = mine.findIndex((f) => f.includes('"result"') && f.includes('"modes"'));
  expect(mine.slice(0, answer).filter((f) => f.includes("session/update")).length).toBe(5);

  const listed = await conn.listSessions({ cwd: env.workspace });
  expect(listed.sessions.map((x) => x.sessionId)).toEqual([s.sessionId]);
  expect(listed.sessions[0]!.title).toBe("what is in a.txt?");
  expect((await conn.listSessions({ cwd: "/nonexistent-dir" })).sessions).toEqual([]);
  await conn.deleteSession({ sessionId: s.sessionId });
  expect((await conn.listSessions({})).sessions).toEqual([]);
  await expect(conn.loadSession({ sessionId: s.sessionId, cwd: env.workspace, mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
});

test("session/resume reopens without replay; a malformed MCP server from the client is refused by name", async () => {
  const { conn, editor, env } = await setup([{ text: "one" }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "x" }] });
  await conn.closeSession({ sessionId: s.sessionId });
  const before = editor.updates.length;
  const r = await conn.resumeSession({ sessionId: s.sessionId, cwd: env.workspace });
  expect(r.modes?.currentModeId).toBe("ask");
  await Bun.sleep(20);
  expect(editor.updates.slice(before).map((u) => u.update.sessionUpdate)).toEqual(["available_commands_update"]);
  const err = await conn.newSession({ cwd: env.workspace, mcpServers: [{ type: "http", name: "x", url: "", headers: [] } as any] }).catch((e) => e);
  expect(err.code).toBe(-32602);
  expect(err.message).toContain("mcpServers[0]");
  const bad = await conn.newSession({ cwd: "relative/dir", mcpServers: [] }).catch((e) => e);
  expect(bad.code).toBe(-32602);
  expect(bad.message).toContain("cwd");
});

test("set_mode switches the permission mode (current_mode_update) and set_model continues on another model", async () => {
  const { conn, editor, env, llm } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "m.txt", content: "m" } }] }, { text: "done" }, { text: "other model speaking" }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await conn.setSessionMode({ sessionId: s.sessionId, modeId: "auto" });
  expect(editor.updates.some((u) => u.update.sessionUpdate === "current_mode_update" && u.update.currentModeId === "auto")).toBe(true);
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "write" }] });
  expect(editor.permissionRequests).toHaveLength(0);
  expect(readFileSync(join(env.workspace, "m.txt"), "utf8")).toBe("m");
  await expect(conn.setSessionMode({ sessionId: s.sessionId, modeId: "bogus" })).rejects.toMatchObject({ code: -32602 });

  await conn.extMethod("session/set_model", { sessionId: s.sessionId, modelId: "other" });
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "who are you" }] });
  expect(llm.chatRequests().at(-1)!.body.model).toBe("other-model");
  const cfg = await conn.setSessionConfigOption({ sessionId: s.sessionId, configId: "model", value: "scripted" });
  expect(cfg.configOptions.find((o) => o.id === "model")!.currentValue).toBe("scripted");
  await expect(conn.extMethod("session/set_model", { sessionId: s.sessionId, modelId: "nope" })).rejects.toMatchObject({ code: -32602 });
});

test("read-only survives a model switch: the write is refused on the other model too (core/host keeps it)", async () => {
  const { conn, editor, env, llm } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "ro.txt", content: "x" } }] }, { text: "could not write" }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await conn.setSessionMode({ sessionId: s.sessionId, modeId: "read-only" });
  await conn.extMethod("session/set_model", { sessionId: s.sessionId, modelId: "other" });
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "write ro.txt" }] });
  expect(llm.chatRequests()[0]!.body.model).toBe("other-model");
  expect(editor.permissionRequests).toHaveLength(0);
  expect(existsSync(join(env.workspace, "ro.txt"))).toBe(false);
});

test("reasoning effort is a config option: it reaches the provider request and survives a model switch", async () => {
  const { conn, env, llm } = await setup([{ text: "one" }, { text: "two" }, { text: "three" }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  expect(s.configOptions?.find((o) => o.id === "reasoning_effort")?.currentValue).toBe("default");
  const r = await conn.setSessionConfigOption({ sessionId: s.sessionId, configId: "reasoning_effort", value: "high" });
  expect(r.configOptions.find((o) => o.id === "reasoning_effort")!.currentValue).toBe("high");
  const ask = () => conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "x" }] });
  await ask();
  const effortOf = (i: number) => JSON.stringify(llm.chatRequests()[i]!.body);
  await conn.extMethod("session/set_model", { sessionId: s.sessionId, modelId: "other" });
  await ask();
  await conn.setSessionConfigOption({ sessionId: s.sessionId, configId: "reasoning_effort", value: "default" });
  await ask();
  expect(effortOf(0)).toContain("high");
  expect(effortOf(1)).toContain("high");
  expect(effortOf(2)).not.toContain("high");
  await expect(conn.setSessionConfigOption({ sessionId: s.sessionId, configId: "reasoning_effort", value: "extreme" })).rejects.toMatchObject({ code: -32602 });
});

test("steering mid-turn is accepted and reaches the next provider request; idle steering is queued", async () => {
  const { conn, editor, env, llm } = await setup([
    { text: "listing", toolCalls: [{ name: "bash", arguments: { command: "sleep 0.4; echo slept" } }] },
    { text: "adjusted" },
    { text: "next turn" },
  ], {}, { permissionMode: "auto" });
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  const since = editor.mark();
  const p = conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "work" }] });
  await editor.waitFor((u) => u.update.sessionUpdate === "tool_call", since);
  const r = await conn.extMethod(STEER_METHOD, { sessionId: s.sessionId, prompt: [{ type: "text", text: "use email, not username" }] });
  expect(r).toEqual({ disposition: "steer_accepted" });
  expect((await p).stopReason).toBe("end_turn");
  expect(llm.chatRequests()[1]!.body.messages.at(-1).content).toBe(steerMessage("use email, not username"));

  const q = await conn.extMethod(STEER_METHOD, { sessionId: s.sessionId, prompt: [{ type: "text", text: "and keep it short" }] });
  expect(q).toEqual({ disposition: "queued_followup" });
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "continue" }] });
  expect(llm.chatRequests()[2]!.body.messages.at(-1).content).toBe(steerMessage("and keep it short"));
  await expect(conn.extMethod(STEER_METHOD, { sessionId: s.sessionId })).rejects.toMatchObject({ code: -32602 });
});

test("no provider configured: session/new asks for authentication naming reasonix setup; terminal auth is offered when the client can run it", async () => {
  const { conn, env } = await setup([], { auth: { terminal: true } } as acp.ClientCapabilities);
  writeFileSync(join(env.home, "config.toml"), "[sandbox]\nbash = \"off\"\n");
  const err = await conn.newSession({ cwd: env.workspace, mcpServers: [] }).catch((e) => e);
  expect(err.code).toBe(-32000);
  expect(err.message).toContain("reasonix setup");
  const init = await conn.initialize(initParams({ auth: { terminal: true } } as acp.ClientCapabilities));
  expect(init.authMethods?.find((m: any) => m.type === "terminal")).toMatchObject({ id: "reasonix-setup", args: ["setup"] });
});
