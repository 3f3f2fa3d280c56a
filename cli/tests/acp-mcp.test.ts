// MCP servers an ACP client passes in session/new start like configured ones
// (stdio inside the OS sandbox) and their tools reach the model for that
// session only.
import { afterEach, describe, expect, test } from "bun:test";
import { connect, initParams, makeAcpEnv } from "../../core/acp/tests/helpers.ts";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { everythingJs, haveServers, nodeBin, sandboxStatus } from "./mcp-helpers.ts";

const skip = !haveServers || !sandboxStatus.available;
if (!haveServers) console.warn("SKIPPED ACP MCP tests: @modelcontextprotocol/server-everything is not installed (npm ci)");
else if (!sandboxStatus.available) console.warn(`SKIPPED ACP MCP tests: the OS sandbox is unavailable (${sandboxStatus.cause})`);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(skip)("client-passed MCP servers", () => {
  test("a stdio server from session/new: its tools are offered and called; another session does not see them", async () => {
    const llm = await startScriptedOpenAI([
      { toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "hello from acp" } }] },
      { text: "echoed" },
      { text: "plain session" },
    ]);
    const env = makeAcpEnv(llm.url, "\n[mcp]\nstartup_grace_seconds = 60\n");
    const c = connect(env, undefined, { permissionMode: "auto" });
    cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
    await c.conn.initialize(initParams());
    const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [{ name: "everything", command: nodeBin, args: [everythingJs, "stdio"], env: [] }] });
    expect((await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "echo" }] })).stopReason).toBe("end_turn");
    const [first, second] = llm.chatRequests();
    expect(first!.body.tools.map((t: any) => t.function.name)).toContain("mcp__everything__echo");
    expect(second!.body.messages.find((m: any) => m.role === "tool").content).toBe("Echo: hello from acp");

    const plain = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
    await c.conn.prompt({ sessionId: plain.sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(llm.chatRequests()[2]!.body.tools.map((t: any) => t.function.name)).not.toContain("mcp__everything__echo");
    await c.conn.closeSession({ sessionId: s.sessionId });
  }, 120_000);

  test("the prompts of a server from session/new reach available_commands_update (issue 33)", async () => {
    const llm = await startScriptedOpenAI([]);
    const env = makeAcpEnv(llm.url, "\n[mcp]\nstartup_grace_seconds = 60\n");
    const c = connect(env);
    cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
    await c.conn.initialize(initParams());
    const since = c.editor.mark();
    const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [{ name: "everything", command: nodeBin, args: [everythingJs, "stdio"], env: [] }] });
    const names = (u: any) => (u.update.sessionUpdate === "available_commands_update" ? u.update.availableCommands.map((x: any) => x.name) : []);
    // Bounded by the test's timeout: the server starts, then the list is sent again with its prompts.
    await c.editor.waitFor((u) => u.sessionId === s.sessionId && names(u).includes("mcp__everything__simple-prompt"), since);
    const last = c.editor.updates.filter((u) => u.sessionId === s.sessionId && u.update.sessionUpdate === "available_commands_update").at(-1)!;
    expect(names(last)).toContain("mcp__everything__args-prompt");
    await c.conn.closeSession({ sessionId: s.sessionId });
  }, 120_000);
});
