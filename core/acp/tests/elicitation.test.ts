// An MCP server's input request (elicitation) during a tool call goes to an
// editor that advertises elicitation.form, scoped to the session and the tool
// call; its answer goes back to the server. Without the capability, or when
// the editor's answer does not fit the form, the server gets a decline.
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { probeSandbox } from "../../sandbox/index.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { changingServer, testScope } from "../../mcp/tests/fixtures/engine-setup.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const sandbox = await probeSandbox();
if (!sandbox.available) console.warn(`SKIPPED ACP elicitation tests: the OS sandbox (for the MCP server) is unavailable (${sandbox.cause})`);

const cleanups = testScope();

async function run(caps: acp.ClientCapabilities, answer?: (r: acp.CreateElicitationRequest) => acp.CreateElicitationResponse) {
  const llm = await startScriptedOpenAI([{ toolCalls: [{ name: "mcp__chg__ask", arguments: {} }] }, { text: "done" }]);
  const env = makeAcpEnv(llm.url, ["[[plugins]]", 'name = "chg"', `command = ${JSON.stringify(process.execPath)}`, `args = [${JSON.stringify(changingServer)}, "."]`, "[mcp]", "startup_grace_seconds = 60"].join("\n"));
  process.env.XDG_STATE_HOME = join(env.workspace, "..", "state");
  const c = connect(env);
  if (answer) c.editor.elicitAnswer = answer;
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  await c.conn.initialize(initParams(caps));
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  const res = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "ask me" }] });
  expect(res.stopReason).toBe("end_turn");
  // What the model got back from the tool.
  const toolMsg = llm.chatRequests()[1]!.body.messages.find((m: { role: string }) => m.role === "tool");
  return { editor: c.editor, sessionId: s.sessionId, result: String(toolMsg?.content ?? ""), log: c.log };
}

describe.skipIf(!sandbox.available)("ACP elicitation", () => {
  test("an editor with elicitation.form gets the form for the running tool call; its answer reaches the server", async () => {
    const { editor, sessionId, result } = await run({ elicitation: { form: {} } } as acp.ClientCapabilities, () => ({ action: "accept", content: { name: "Zed" } }));
    expect(editor.elicitations).toHaveLength(1);
    const r = editor.elicitations[0]! as Record<string, unknown>;
    expect(r).toMatchObject({ sessionId, mode: "form", message: "chg: Who is asking?" });
    const call = editor.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call") as { toolCallId: string };
    expect(r.toolCallId).toBe(call.toolCallId);
    expect(result).toBe('elicited {"action":"accept","content":{"name":"Zed","count":3}}');
  }, 60_000);

  test("an answer that does not fit the form is a decline", async () => {
    const { result, log } = await run({ elicitation: { form: {} } } as acp.ClientCapabilities, () => ({ action: "accept", content: { count: 1 } }));
    expect(result).toBe('elicited {"action":"decline"}');
    expect(log.join("\n")).toContain('elicitation answer refused (field "name" is required); declining');
  }, 60_000);

  test("an editor without the capability is never asked: the server gets a decline", async () => {
    const { editor, result } = await run({}, () => ({ action: "accept", content: { name: "never" } }));
    expect(editor.elicitations).toHaveLength(0);
    expect(result).toBe('elicited {"action":"decline"}');
  }, 60_000);
});
