// ACP: /compact and /mcp are announced and answered by the agent; the MCP
// servers' prompts join available_commands_update once the servers are up,
// and one sent back as prompt text is expanded through prompts/get. Real
// stdio server (@modelcontextprotocol/server-everything, sandboxed).
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../sandbox/index.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { testScope } from "../../mcp/tests/fixtures/engine-setup.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const everythingJs = join(import.meta.dir, "../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const nodeBin = Bun.which("node");
const sandbox = await probeSandbox();
const skip = !existsSync(everythingJs) || !nodeBin || !sandbox.available;
if (skip) console.warn(`SKIPPED ACP /compact, /mcp and MCP prompt tests: ${!existsSync(everythingJs) ? "server-everything is not installed (npm ci)" : !nodeBin ? "node is not on PATH" : `the OS sandbox is unavailable (${sandbox.cause})`}`);

const cleanups = testScope();

type Cmd = { name: string; description: string; input?: { hint: string } };
const isCompactionRequest = (req: { body: any }) => String(req.body.messages.at(-1)?.content).includes("<compaction-request>");

describe.skipIf(skip)("ACP session commands and MCP prompts", () => {
  test("announces /compact, /mcp and (once up) the MCP prompts; runs each", async () => {
    const llm = await startScriptedOpenAI([
      { text: "sunny" },
      { text: "second answer" },
      (req) => (isCompactionRequest(req) ? { text: "ACP-SUMMARY" } : { kind: "error", status: 400, message: "expected a compaction request" }),
      { text: "after compaction" },
    ]);
    const plugin = ["[[plugins]]", 'name = "everything"', `command = ${JSON.stringify(nodeBin)}`, `args = [${JSON.stringify(everythingJs)}, "stdio"]`, "[mcp]", "startup_grace_seconds = 60"].join("\n");
    const env = makeAcpEnv(llm.url, plugin);
    process.env.XDG_STATE_HOME = join(env.home, "..", "state");
    const c = connect(env);
    cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
    await c.conn.initialize(initParams({}));
    const since = c.editor.mark();
    const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
    const lists = () => c.editor.updates.filter((u) => u.update.sessionUpdate === "available_commands_update").map((u) => (u.update as { availableCommands: Cmd[] }).availableCommands);
    await c.editor.waitFor((u) => u.update.sessionUpdate === "available_commands_update", since);
    expect(lists()[0]!.map((x) => x.name)).toEqual(expect.arrayContaining(["mode", "model", "compact", "mcp", "docs"]));
    // A second update once server-everything is up, with its prompts.
    const hasPrompt = (l: Cmd[]) => l.some((x) => x.name === "mcp__everything__args-prompt");
    await Promise.race([c.editor.waitFor((u) => u.update.sessionUpdate === "available_commands_update" && hasPrompt((u.update as { availableCommands: Cmd[] }).availableCommands), since), Bun.sleep(60_000)]);
    const last = lists().at(-1)!;
    expect(last.find((x) => x.name === "mcp__everything__args-prompt")).toEqual({ name: "mcp__everything__args-prompt", description: "A prompt with two arguments, one required and one optional", input: { hint: "<city> [state]" } });

    const say = async (text: string) => {
      const before = c.editor.text(s.sessionId).length;
      const r = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text }] });
      expect(r.stopReason).toBe("end_turn");
      return c.editor.text(s.sessionId).slice(before);
    };
    const mcp = await say("/mcp");
    expect(mcp).toContain("everything [stdio, user] ready");
    expect(mcp).toContain("/mcp__everything__args-prompt");
    expect(llm.chatRequests()).toHaveLength(0); // answered by the agent, not the model

    await say("/mcp__everything__args-prompt Springfield Illinois");
    expect(llm.chatRequests()[0]!.body.messages.at(-1).content).toContain("What's weather in Springfield, Illinois?");
    await say("second");
    expect(await say("/compact")).toMatch(/compacted \d+ earlier messages into a summary/);
    await say("third");
    const after = llm.chatRequests()[3]!.body;
    expect(JSON.stringify(after.messages)).toContain("ACP-SUMMARY");
    expect(JSON.stringify(after.messages)).not.toContain("Springfield");
    expect(JSON.stringify(after.tools)).toBe(JSON.stringify(llm.chatRequests()[1]!.body.tools));
  });
});
