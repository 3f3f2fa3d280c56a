// MCP through the engine: the tool block changes only at a turn boundary
// after tools/list_changed (cache rule), progress reaches the front end as
// tool_progress events, and cancelling a turn sends MCP cancellation.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent } from "../../engine/types.ts";
import { probeSandbox } from "../../sandbox/index.ts";
import { formatStatuses } from "../report.ts";
import { engineWithChangingServer, testScope } from "./fixtures/engine-setup.ts";
import { pollFor } from "../../testing/fresh-wait.ts";

const sandbox = await probeSandbox();
if (!sandbox.available) console.warn(`SKIPPED MCP engine tests: the OS sandbox is unavailable (${sandbox.cause})`);

const cleanups = testScope();
const setup = (steps: Parameters<typeof engineWithChangingServer>[1]) => engineWithChangingServer(cleanups, steps);

const toolNames = (req: { body: any }) => req.body.tools.map((t: any) => t.function.name) as string[];

describe.skipIf(!sandbox.available)("MCP tools in the engine", () => {
  test("tools/list_changed changes the tool block once, at the next turn, never mid-turn", async () => {
    const { llm, engine } = await setup([
      { toolCalls: [{ name: "mcp__chg__add_tool", arguments: {} }] },
      { toolCalls: [{ name: "mcp__chg__extra", arguments: { n: 1 } }] },
      { text: "turn one done" },
      { toolCalls: [{ name: "mcp__chg__extra", arguments: { n: 2 } }] },
      { text: "turn two done" },
      { text: "turn three" },
    ]);
    const s = await engine.createSession();
    expect(await s.submit("add a tool")).toBe("done");
    // list_changed is a notification: wait until the client has read the new list (the server status shows it).
    await pollFor("the new tool in the server's status after list_changed", () => engine.mcpServers!()[0]?.tools ?? [], (tools) => tools.includes("mcp__chg__extra"));
    expect(await s.submit("use it")).toBe("done");
    expect(await s.submit("again")).toBe("done");
    const reqs = llm.chatRequests();
    expect(reqs).toHaveLength(6);
    const [a, b, c, d, e, f] = reqs.map(toolNames);
    // Turn 1: the same block for every step, without the new tool; calling it mid-turn is an unknown tool.
    expect(a).not.toContain("mcp__chg__extra");
    expect(b).toEqual(a!);
    expect(c).toEqual(a!);
    expect(JSON.stringify(reqs[2]!.body.messages)).toContain("unknown tool");
    // Turn 2 onwards: the new block, byte-identical from then on.
    expect(d).toContain("mcp__chg__extra");
    expect(JSON.stringify(reqs[3]!.body.tools)).toBe(JSON.stringify(reqs[4]!.body.tools));
    expect(JSON.stringify(reqs[4]!.body.tools)).toBe(JSON.stringify(reqs[5]!.body.tools));
    expect(JSON.stringify(reqs[4]!.body.messages)).toContain("extra 2");
    void e; void f;
    // What a front end's /mcp listing shows.
    const status = engine.mcpServers!();
    expect(status).toEqual([expect.objectContaining({ name: "chg", type: "stdio", scope: "user", status: "ready" })]);
    expect(status[0]!.tools).toContain("mcp__chg__extra");
    expect(formatStatuses(status)).toStartWith("chg [stdio, user] ready\n  tools: mcp__chg__add_tool, ");
  });

  test("progress arrives as tool_progress events; cancelling the turn cancels the MCP call", async () => {
    const { engine, workspace } = await setup([{ toolCalls: [{ name: "mcp__chg__wait", arguments: {} }] }, { text: "never" }]);
    const s = await engine.createSession();
    const events: EngineEvent[] = [];
    let progressed!: () => void;
    const gotProgress = new Promise<void>((r) => (progressed = r));
    s.subscribe((e) => {
      events.push(e);
      if (e.type === "tool_progress") progressed();
    });
    const turn = s.submit("wait");
    await gotProgress;
    s.cancel();
    expect(await turn).toBe("cancelled");
    expect(events.find((e) => e.type === "tool_progress")).toMatchObject({ type: "tool_progress", progress: 1, total: 2, message: "waiting" });
    // The server saw notifications/cancelled for the request (bounded wait for its marker).
    await pollFor("the server's cancellation marker", () => existsSync(join(workspace, "cancelled.txt")), (ok) => ok);
  });
});
