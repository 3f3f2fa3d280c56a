// `reasonix run` with MCP servers that never come up (issue 33): a server
// that never answers initialize must not hold the exit, and servers that
// fail to start are named once on stderr / as a stream-json warning, and the
// model is told the server is unavailable rather than that the tool is unknown.
import { afterEach, describe, expect, test } from "bun:test";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { graceToml, nodeBin, pluginToml } from "./mcp-helpers.ts";

const haveNode = !!Bun.which("node");
if (!haveNode) console.warn("SKIPPED MCP run failure tests: node is not installed (the stub servers run on it)");

const stops: (() => unknown)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

/** The scripted model and a throw-away home whose user config declares `toml`. */
async function scripted(steps: Parameters<typeof startScriptedOpenAI>[0], toml: string): Promise<{ llm: ScriptedServer; ce: CliEnv }> {
  const llm = await startScriptedOpenAI(steps);
  const ce = makeCliEnv(llm.url, { extraToml: toml });
  stops.push(() => llm.close(), () => ce.cleanup());
  return { llm, ce };
}

/** A stdio "server" that reads its input and never says anything (no answer to initialize). */
const silent = (name: string, startupS: number) =>
  pluginToml(name, { command: nodeBin, args: ["-e", "process.stdin.resume()"], extra: ["sandbox = false", `startup_timeout_seconds = ${startupS}`] });

const toolMessages = (req: { body: any }) => req.body.messages.filter((m: any) => m.role === "tool").map((m: any) => String(m.content));

describe.skipIf(!haveNode)("reasonix run with MCP servers that do not start (issue 33)", () => {
  test("a server that never answers initialize does not hold the exit: the run ends with its turn", async () => {
    // Startup timeout 120 s; grace default (3 s): the turn goes on without it.
    const { ce } = await scripted([{ text: "done without it" }], silent("mute", 120));
    const t0 = performance.now();
    const r = await runCli(ce, ["run", "hello"]);
    const took = (performance.now() - t0) / 1000;
    expect(r.stdout).toContain("done without it");
    // Waiting out the startup timeout (120 s) ends in runCli's kill at 60 s: exit 137, not 0.
    expect(r.code).toBe(0);
    expect(took).toBeLessThan(50);
  }, 90_000);

  test("missing binary, exit 3 with a message, a hang past its timeout: warned once with name, cause and stderr; the model hears 'unavailable'", async () => {
    const toml =
      pluginToml("ghost", { command: "/nonexistent/reasonix-ghost-server", extra: ["sandbox = false"] }) +
      pluginToml("crashy", { command: nodeBin, args: ["-e", "console.error('crashy: the token is invalid'); process.exit(3)"], extra: ["sandbox = false"] }) +
      silent("hangs", 1) +
      graceToml;
    const { llm, ce } = await scripted(
      [
        { toolCalls: [{ name: "mcp__ghost__x", arguments: {} }, { name: "mcp__crashy__y", arguments: {} }, { name: "mcp__hangs__z", arguments: {} }] },
        { text: "noted" },
      ],
      toml,
    );
    const r = await runCli(ce, ["run", "--output-format", "stream-json", "use them"]);
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const warnings = events.filter((e) => e.type === "warning").map((e) => String(e.message));
    for (const [name, cause] of [["ghost", /ENOENT|not found|no such file/i], ["crashy", /exited \(code 3\)/], ["hangs", /initialize within 1 s/]] as const) {
      const said = warnings.filter((w) => w.includes(`MCP server "${name}"`));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(cause);
      // And once on stderr.
      expect(r.stderr.split(`MCP server "${name}"`).length - 1).toBe(1);
    }
    expect(warnings.find((w) => w.includes('"crashy"'))).toContain("crashy: the token is invalid");
    const out = toolMessages(llm.chatRequests()[1]!);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/^MCP server "ghost" is unavailable: .*(ENOENT|not found|no such file)/is);
    expect(out[1]).toMatch(/^MCP server "crashy" is unavailable: /);
    expect(out[1]).toContain("crashy: the token is invalid");
    expect(out[2]).toMatch(/^MCP server "hangs" is unavailable: .*initialize within 1 s/s);
    for (const o of out) expect(o).not.toContain("unknown tool");
  }, 90_000);

  test("--output-format json lists the failure under warnings (and says it on stderr)", async () => {
    const { ce } = await scripted([{ text: "ok" }], pluginToml("ghost", { command: "/nonexistent/reasonix-ghost-server", extra: ["sandbox = false"] }) + graceToml);
    const r = await runCli(ce, ["run", "--output-format", "json", "hi"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.warnings.filter((w: string) => w.startsWith('MCP server "ghost" is unavailable: '))).toHaveLength(1);
    expect(r.stderr.split('MCP server "ghost"').length - 1).toBe(1);
  }, 90_000);
});
