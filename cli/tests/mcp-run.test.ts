// `reasonix run` with the scripted model calling MCP tools of real servers
// (@modelcontextprotocol/server-everything and server-filesystem over stdio,
// inside the OS sandbox).
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startEverythingHttp } from "../../core/testing/everything-http.ts";
import { freePort } from "../../core/testing/free-port.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { everythingJs, filesystemJs, graceToml, haveServers, nodeBin, pluginToml, sandboxStatus } from "./mcp-helpers.ts";

const skip = !haveServers || !sandboxStatus.available;
if (!haveServers) console.warn("SKIPPED MCP run tests: the MCP reference servers are not installed (npm ci)");
else if (!sandboxStatus.available) console.warn(`SKIPPED MCP run tests: the OS sandbox is unavailable (${sandboxStatus.cause})`);

let llm: ScriptedServer;
let ce: CliEnv;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0], toml: string) {
  llm = await startScriptedOpenAI(steps);
  ce = makeCliEnv(llm.url, { extraToml: toml + graceToml });
  ce.env.XDG_STATE_HOME = join(ce.home, "..", "state");
  cleanups.push(() => llm.close(), () => ce.cleanup());
}

const toolMessages = (req: { body: any }) => req.body.messages.filter((m: any) => m.role === "tool").map((m: any) => String(m.content));

describe.skipIf(skip)("reasonix run calls MCP tools", () => {
  test("echo, sum, image, structured content and env scrubbing through server-everything (stdio, sandboxed)", async () => {
    await setup(
      [
        {
          toolCalls: [
            { name: "mcp__everything__echo", arguments: { message: "hello mcp" } },
            { name: "mcp__everything__get-sum", arguments: { a: 2, b: 3 } },
            { name: "mcp__everything__get-tiny-image", arguments: {} },
            { name: "mcp__everything__get-structured-content", arguments: { location: "Chicago" } },
            { name: "mcp__everything__get-env", arguments: {} },
          ],
        },
        { text: "all done" },
      ],
      pluginToml("everything", { command: nodeBin, args: [everythingJs, "stdio"], env: { GREETING: "hi-${MCP_TEST_UNSET:-fallback}" } }),
    );
    ce.env.GITHUB_TOKEN = "ghp_should_not_leak";
    ce.env.MY_SERVICE_API_KEY = "sk-should-not-leak";
    const r = await runCli(ce, ["run", "use the tools"]);
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    const reqs = llm.chatRequests();
    expect(reqs).toHaveLength(2);
    const tools = reqs[0]!.body.tools.map((t: any) => t.function);
    const echo = tools.find((t: any) => t.name === "mcp__everything__echo");
    expect(echo.parameters.properties.message.type).toBe("string");
    // Sorted by name with the built-ins: a stable tool block.
    const names = tools.map((t: any) => t.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));
    const out = toolMessages(reqs[1]!);
    expect(out[0]).toBe("Echo: hello mcp");
    expect(out[1]).toContain("5");
    expect(out[2]).toMatch(/\[image: image\/png, \d+ bytes\]/);
    expect(out[3]).toContain("temperature");
    expect(JSON.parse(out[4]!).GREETING).toBe("hi-fallback");
    expect(out[4]).not.toContain("ghp_should_not_leak");
    expect(out[4]).not.toContain("sk-should-not-leak");
    expect(out[4]).not.toContain("sk-cli-test");
    expect(out[4]).not.toContain("REASONIX_HOME");
  });

  test("prompts are /mcp__<server>__<prompt> commands (positional args), resources are @<server>:<uri> references", async () => {
    await setup([{ text: "sunny" }, { text: "read it" }], pluginToml("everything", { command: nodeBin, args: [everythingJs, "stdio"] }));
    let r = await runCli(ce, ["run", "/mcp__everything__args-prompt Springfield Illinois"]);
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    const first = llm.chatRequests()[0]!.body.messages.filter((m: any) => m.role === "user").at(-1).content;
    expect(first).toContain("What's weather in Springfield, Illinois?");
    r = await runCli(ce, ["run", "summarize @everything:demo://resource/static/document/architecture.md please"]);
    expect(r.code).toBe(0);
    const second = llm.chatRequests()[1]!.body.messages.filter((m: any) => m.role === "user").at(-1).content;
    expect(second).toContain('<resource server="everything" uri="demo://resource/static/document/architecture.md">');
    expect(second.length).toBeGreaterThan(200);
  });

  for (const [mode, type, path] of [["streamableHttp", "http", "/mcp"], ["sse", "sse", "/sse"]] as const) {
    test(`${type}: reasonix run calls a remote server-everything (echo, long-running with progress)`, async () => {
      const port = await freePort();
      const srv = await startEverythingHttp(nodeBin, everythingJs, mode, port);
      cleanups.push(srv.stop);
      await setup(
        [
          { toolCalls: [{ name: "mcp__remote__echo", arguments: { message: `via ${type}` } }, { name: "mcp__remote__trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } }] },
          { text: "done" },
        ],
        pluginToml("remote", { type, url: `http://127.0.0.1:${port}${path}` }),
      );
      const r = await runCli(ce, ["run", "--output-format", "stream-json", "go"]);
      expect(r.stderr).not.toContain("error:");
      expect(r.code).toBe(0);
      const out = toolMessages(llm.chatRequests()[1]!);
      expect(out[0]).toBe(`Echo: via ${type}`);
      expect(out[1]).toContain("Long running operation completed");
      expect(r.stdout).toContain('"type":"tool_progress"');
    });
  }

  test("server-filesystem under the sandbox writes in the workspace but not outside it", async () => {
    await setup(
      [
        {
          toolCalls: [
            { name: "mcp__fs__write_file", arguments: { path: "inside.txt", content: "in" } },
            { name: "mcp__fs__write_file", arguments: { path: "../outside/escape.txt", content: "out" } },
          ],
        },
        { text: "tried" },
      ],
      "",
    );
    const outside = join(ce.workspace, "..", "outside");
    mkdirSync(outside, { recursive: true });
    // The server itself may use both directories; the sandbox lets it write only the workspace.
    appendFileSync(join(ce.home, "config.toml"), pluginToml("fs", { command: nodeBin, args: [filesystemJs, ce.workspace, outside] }));
    const r = await runCli(ce, ["run", "write two files"]);
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    const out = toolMessages(llm.chatRequests()[1]!);
    expect(out[0]).toContain("Successfully wrote");
    expect(readFileSync(join(ce.workspace, "inside.txt"), "utf8")).toBe("in");
    expect(out[1]).toMatch(/read-only|EROFS|EACCES|denied|not permitted/i);
    expect(existsSync(join(outside, "escape.txt"))).toBe(false);
  });
});
