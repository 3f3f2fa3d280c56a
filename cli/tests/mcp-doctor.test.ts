// `reasonix doctor capabilities` lists MCP servers without starting them;
// --live starts each one (exit 1 when one fails).
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { everythingJs, haveServers, nodeBin, pluginToml, sandboxStatus } from "./mcp-helpers.ts";

const skip = !haveServers || !sandboxStatus.available;
if (skip) console.warn("SKIPPED MCP doctor tests: the MCP reference servers or the OS sandbox are unavailable");

let ce: CliEnv;
afterEach(() => ce?.cleanup());

describe.skipIf(skip)("doctor capabilities: MCP servers", () => {
  test("static by default (nothing starts), --live starts them and reports failures with exit 1", async () => {
    ce = makeCliEnv("http://127.0.0.1:9/v1");
    ce.env.XDG_STATE_HOME = join(ce.home, "..", "state");
    appendFileSync(join(ce.home, "config.toml"), pluginToml("everything", { command: nodeBin, args: [everythingJs, "stdio"] }) + pluginToml("marker", { command: nodeBin, args: ["-e", "require('fs').writeFileSync('started.txt', '1')"] }));
    writeFileSync(join(ce.workspace, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: "x" } } }));
    let r = await runCli(ce, ["doctor", "capabilities", "--json"]);
    expect(r.code).toBe(0);
    const mcp = JSON.parse(r.stdout).mcp;
    expect(mcp.servers.map((s: any) => [s.name, s.state])).toEqual([["everything", "configured"], ["marker", "configured"], ["proj", "blocked"]]);
    expect(mcp.live).toBeUndefined();
    expect(existsSync(join(ce.workspace, "started.txt"))).toBe(false);

    r = await runCli(ce, ["doctor", "capabilities", "--live"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("MCP servers");
    expect(r.stdout).toMatch(/everything .*\n\s+started .*tools/);
    expect(r.stdout).toMatch(/marker .*\n\s+failed/);
    expect(existsSync(join(ce.workspace, "started.txt"))).toBe(true);
  });
});
