// A subagent's approvals over ACP: the child's request reaches the editor as
// session/request_permission on the parent's session, titled with the
// child's name; the editor's answer goes back to the child. The child's
// progress shows in the thought stream.
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const llm = await startScriptedOpenAI([
    { toolCalls: [{ name: "task", arguments: { description: "scribe", prompt: "write a.txt" } }] },
    { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "from child\n" } }] },
    { text: "child wrote a.txt" },
    { text: "parent done" },
  ]);
  const env = makeAcpEnv(llm.url);
  const c = connect(env);
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  await c.conn.initialize(initParams({ fs: { readTextFile: false, writeTextFile: false } } as acp.ClientCapabilities));
  return { env, ...c };
}

for (const [answer, written] of [["allow_once", true], ["reject", false]] as const) {
  test(`request_permission for a child's call names the child (${answer})`, async () => {
    const { conn, editor, env } = await setup();
    editor.answer = answer;
    const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
    const res = await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "delegate" }] });
    expect(res.stopReason).toBe("end_turn");
    expect(editor.permissionRequests.length).toBe(1);
    const req = editor.permissionRequests[0]!;
    expect(req.sessionId).toBe(s.sessionId);
    expect(req.toolCall.title).toContain("[subagent scribe]");
    expect(req.toolCall.title).toContain("a.txt");
    expect(req.toolCall.kind).toBe("edit");
    // Issue 27: the two "always" options (your config, this project) name the file each saves to.
    expect(req.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "allow_always", "allow_always", "reject_once"]);
    expect(req.options.map((o) => o.optionId)).toEqual(["allow_once", "allow_session", "allow_always", "allow_always_project", "reject"]);
    expect(existsSync(join(env.workspace, "a.txt"))).toBe(written);
    if (written) expect(readFileSync(join(env.workspace, "a.txt"), "utf8")).toBe("from child\n");
    // The editor first heard of the child's call in the request; its card is closed afterwards.
    expect(editor.updates.some((u) => u.update.sessionUpdate === "tool_call" && u.update.toolCallId === req.toolCall.toolCallId)).toBe(false);
    const closed = editor.updates.map((u) => u.update).filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === req.toolCall.toolCallId) as acp.ToolCallUpdate[];
    expect(closed.at(-1)?.status).toBe(written ? "completed" : "failed");
    const thoughts = editor.text(s.sessionId, "agent_thought_chunk");
    expect(thoughts).toContain("[↳ subagent scribe started]");
    expect(thoughts).toContain("[scribe › write_file: a.txt]");
    expect(thoughts).toContain(written ? "[↳ subagent scribe finished]" : "[↳ subagent scribe ended (denied)]");
  });
}
