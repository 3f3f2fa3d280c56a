// `reasonix mcp list/add/get/remove/test` and workspace trust for project
// servers (.mcp.json): not started untrusted, started after `reasonix trust`.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { everythingJs, graceToml, haveServers, nodeBin, sandboxStatus } from "./mcp-helpers.ts";

const skip = !haveServers || !sandboxStatus.available;
if (!haveServers) console.warn("SKIPPED MCP CLI tests: the MCP reference servers are not installed (npm ci)");
else if (!sandboxStatus.available) console.warn(`SKIPPED MCP CLI tests: the OS sandbox is unavailable (${sandboxStatus.cause})`);

let llm: ScriptedServer;
let ce: CliEnv;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0] = [{ text: "ok" }]) {
  llm = await startScriptedOpenAI(steps);
  ce = makeCliEnv(llm.url, { extraToml: graceToml });
  ce.env.XDG_STATE_HOME = join(ce.home, "..", "state");
  cleanups.push(() => llm.close(), () => ce.cleanup());
}

describe.skipIf(skip)("reasonix mcp", () => {
  test("add, list, get, test, remove a user server; the config file keeps its other settings", async () => {
    await setup();
    const before = readFileSync(join(ce.home, "config.toml"), "utf8");
    let r = await runCli(ce, ["mcp", "add", "everything", "--env", "GREETING=hi", "--", nodeBin, everythingJs, "stdio"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const after = readFileSync(join(ce.home, "config.toml"), "utf8");
    expect(after.startsWith(before.trimEnd())).toBe(true);
    r = await runCli(ce, ["mcp", "add", "everything", "--", "x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("already exists");

    r = await runCli(ce, ["mcp", "list", "--json"]);
    const list = JSON.parse(r.stdout);
    expect(list.servers).toEqual([expect.objectContaining({ name: "everything", type: "stdio", scope: "user", state: "configured", sandbox: true })]);

    r = await runCli(ce, ["mcp", "get", "everything", "--json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "everything", command: nodeBin, args: [everythingJs, "stdio"], env: { GREETING: "hi" } });

    r = await runCli(ce, ["mcp", "test", "everything", "--json"]);
    expect(r.code).toBe(0);
    const t = JSON.parse(r.stdout);
    expect(t).toMatchObject({ ok: true, status: "ready", backend: "bwrap" });
    expect(t.tools).toContainEqual({ name: "mcp__everything__echo", raw: "echo", readOnly: true });
    expect(t.prompts).toContain("simple-prompt");
    expect(t.resources.length).toBeGreaterThan(0);
    expect(t.timings.connect).toBeGreaterThan(0);

    r = await runCli(ce, ["mcp", "remove", "everything"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toBe(before.trimEnd() + "\n");
    r = await runCli(ce, ["mcp", "remove", "everything"]);
    expect(r.code).toBe(2);
  });

  test("mcp test of a server that dies names the failure and shows its stderr", async () => {
    await setup();
    let r = await runCli(ce, ["mcp", "add", "broken", "--", nodeBin, "-e", "console.error('cannot open the database'); process.exit(3)"]);
    expect(r.code).toBe(0);
    r = await runCli(ce, ["mcp", "test", "broken"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("FAIL");
    expect(r.stderr).toContain("cannot open the database");
  });

  test("a project .mcp.json server is not started untrusted, starts after reasonix trust; reasonix.toml wins by name", async () => {
    await setup([
      { toolCalls: [{ name: "mcp__proj__echo", arguments: { message: "from project" } }] },
      { text: "first" },
      { toolCalls: [{ name: "mcp__proj__echo", arguments: { message: "from project" } }] },
      { text: "second" },
    ]);
    writeFileSync(join(ce.workspace, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: nodeBin, args: [everythingJs, "stdio"] }, other: { type: "http", url: "http://127.0.0.1:9/mcp" } } }));
    let r = await runCli(ce, ["mcp", "list", "--json"]);
    const rows = JSON.parse(r.stdout).servers;
    expect(rows.map((x: any) => [x.name, x.scope, x.state])).toEqual([["other", "mcp.json", "blocked"], ["proj", "mcp.json", "blocked"]]);
    expect(rows[1].reason).toContain("workspace not trusted");
    r = await runCli(ce, ["mcp", "test", "proj"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("not started: workspace not trusted");

    r = await runCli(ce, ["run", "echo"]);
    expect(r.code).toBe(0);
    const first = llm.chatRequests();
    expect(first[0]!.body.tools.map((t: any) => t.function.name)).not.toContain("mcp__proj__echo");
    // Not started (untrusted) is said as such, not as an unknown tool (issue 33).
    expect(JSON.stringify(first[1]!.body.messages)).toContain('MCP server \\"proj\\" is unavailable: not started: workspace not trusted');

    r = await runCli(ce, ["trust", "--yes"]);
    expect(r.code).toBe(0);
    r = await runCli(ce, ["run", "echo"]);
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    const second = llm.chatRequests().slice(2);
    expect(second[0]!.body.tools.map((t: any) => t.function.name)).toContain("mcp__proj__echo");
    expect(second[1]!.body.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content)).toEqual(["Echo: from project"]);

    // A same-name reasonix.toml declaration hides the .mcp.json one.
    writeFileSync(join(ce.workspace, "reasonix.toml"), `[[plugins]]\nname = "proj"\ncommand = "${nodeBin}"\nargs = ["-e", "1"]\n`);
    r = await runCli(ce, ["mcp", "get", "proj", "--json"]);
    const got = JSON.parse(r.stdout);
    expect(got.scope).toBe("project");
    expect(got.blocked).toContain("workspace not trusted");
    expect(got.shadows).toEqual([{ scope: "mcp.json", file: join(ce.workspace, ".mcp.json") }]);
  });
});
