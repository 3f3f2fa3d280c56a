// MCP in the terminal chat (real tmux pane, real stdio server
// @modelcontextprotocol/server-everything in the OS sandbox, scripted model):
// `/mcp` lists the servers; their prompts join the `/` menu as
// /mcp__<server>__<prompt> with description and argument hint, and running
// one sends what prompts/get returned as the user message.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { chatFixture, closeMenu, hasTmux, ready, type Pane } from "./chat-helpers.ts";
import { everythingJs, graceToml, haveServers, nodeBin, pluginToml, sandboxStatus } from "./mcp-helpers.ts";

const skip = !hasTmux() || !haveServers || !sandboxStatus.available;
if (skip) console.warn(`SKIPPED terminal chat MCP tests: ${!hasTmux() ? "tmux is not installed" : !haveServers ? "the MCP reference servers are not installed (npm ci)" : `the OS sandbox is unavailable (${sandboxStatus.cause})`}`);

const f = chatFixture();

async function mcpReady(p: Pane): Promise<string> {
  // The server starts in the background when the session opens: ask again until it is up (bounded).
  // Each answer is judged by the status line this /mcp printed (the last one), not an earlier one.
  for (let i = 0; i < 30; i++) {
    p.send("/mcp");
    const s = await p.waitFor(/everything \[stdio, user\] (ready|starting|failed|idle)/, { timeoutMs: 10_000 });
    if ([...s.matchAll(/everything \[stdio, user\] (\w+)/g)].at(-1)?.[1] === "ready") return s;
    await Bun.sleep(500);
  }
  throw new Error("server-everything never became ready");
}

describe.skipIf(skip)("MCP in the terminal chat", () => {
  test("/mcp lists the server with its tools and prompts; a prompt in the / menu runs through prompts/get", async () => {
    await f.setup([{ text: "it is sunny" }], pluginToml("everything", { command: nodeBin, args: [everythingJs, "stdio"] }) + graceToml);
    f.ce.env.XDG_STATE_HOME = join(f.ce.home, "..", "state");
    const p = f.chat();
    await ready(p);
    const s = await mcpReady(p);
    expect(s).toContain("tools: ");
    expect(s).toContain("mcp__everything__echo");
    expect(s).toMatch(/prompts: .*\/mcp__everything__args-prompt/);
    // The / menu: filtered to the server's prompts, with description and argument hint.
    // The listing above already shows the name: the wait is for one more occurrence (the menu's).
    p.type("/mcp__every");
    const menu = await p.waitFor("mcp__everything__args-prompt");
    expect(menu).toContain("A prompt with two arguments, one required and one optional");
    expect(menu).toContain("<city> [state]");
    expect(menu).toContain("mcp__everything__simple-prompt");
    p.keys("C-u");
    await closeMenu(p);
    p.send("/mcp__everything__args-prompt Springfield Illinois");
    await p.waitFor("it is sunny");
    const req = f.llm.chatRequests()[0]!.body.messages;
    expect(req.at(-1)).toMatchObject({ role: "user" });
    expect(req.at(-1).content).toContain("What's weather in Springfield, Illinois?");
  });
});
