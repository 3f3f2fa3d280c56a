// MCP through the engine: the tool block changes only at a turn boundary
// after tools/list_changed (cache rule), progress reaches the front end as
// tool_progress events, and cancelling a turn sends MCP cancellation.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { createEngine } from "../../engine/engine.ts";
import type { EngineEvent } from "../../engine/types.ts";
import { probeSandbox } from "../../sandbox/index.ts";
import { formatStatuses } from "../report.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";

const fixture = join(import.meta.dir, "fixtures", "changing-server.ts");
const sandbox = await probeSandbox();
if (!sandbox.available) console.warn(`SKIPPED MCP engine tests: the OS sandbox is unavailable (${sandbox.cause})`);

const cleanups: (() => unknown)[] = [];
const stateBefore = process.env.XDG_STATE_HOME;
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  // The engine reads the state dir from the environment; leave it as found for other files.
  if (stateBefore === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = stateBefore;
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0]) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-mcp-engine-")));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(home);
  mkdirSync(workspace);
  const llm = await startScriptedOpenAI(steps);
  writeFileSync(join(home, ".env"), "SCRIPTED_KEY=sk-test\n", { mode: 0o600 });
  writeFileSync(
    join(home, "config.toml"),
    [
      'default_model = "scripted"',
      "[[providers]]",
      'name = "scripted"', 'kind = "openai"', `base_url = "${llm.url}"`, 'model = "m"', 'api_key_env = "SCRIPTED_KEY"',
      "[[plugins]]",
      'name = "chg"', `command = ${JSON.stringify(process.execPath)}`, `args = [${JSON.stringify(fixture)}, ${JSON.stringify(workspace)}]`,
      "[mcp]", "startup_grace_seconds = 60",
      "",
    ].join("\n"),
  );
  process.env.XDG_STATE_HOME = join(root, "state");
  const cfg = loadConfig({ cwd: workspace, home });
  const engine = createEngine({ workspace, home, config: cfg.values, headless: true, permissionMode: "auto" });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }), () => llm.close(), () => engine.close());
  return { llm, engine, workspace };
}

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
    // list_changed is a notification: give it a moment to arrive before the next turn (bounded).
    for (let i = 0; i < 50; i++) await Bun.sleep(20);
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
    for (let i = 0; i < 100 && !existsSync(join(workspace, "cancelled.txt")); i++) await Bun.sleep(50);
    expect(existsSync(join(workspace, "cancelled.txt"))).toBe(true);
  });
});
