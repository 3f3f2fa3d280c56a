// MCP benchmark.
// 1. Per-call overhead: `mcp__everything__echo` as the engine runs it (the
//    permission check, the tool adapter, core/mcp's connection to a server
//    started inside the sandbox, result formatting) ÷ the same call made
//    directly with the SDK Client on an unsandboxed server. Goal ≤ 1.5×.
// 2. Time to first prompt: createEngine + createSession with 5 configured
//    servers, one of which never answers, minus the same with none.
//    Goal ≤ +50 ms (servers start in the background).
//
//   bun scripts/bench/mcp.ts [--calls 300] [--runs 10]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loadConfig } from "../../core/config/load.ts";
import { createEngine } from "../../core/engine/index.ts";
import { workspaceMcp } from "../../core/mcp/source.ts";
import { Permissions } from "../../core/permissions/index.ts";
import type { ToolContext } from "../../core/tools/types.ts";

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const CALLS = opt("calls", 300);
const RUNS = opt("runs", 10);
const everything = resolve(import.meta.dir, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const node = Bun.which("node") ?? "node";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), "rx-bench-mcp-"));
process.env.XDG_STATE_HOME = join(dir, "state");
const home = join(dir, "home");
const ws = join(dir, "ws");
mkdirSync(home, { recursive: true });
mkdirSync(ws, { recursive: true });
writeFileSync(join(home, ".env"), "BENCH_KEY=sk-bench\n", { mode: 0o600 });
const provider = ['default_model = "b"', "[[providers]]", 'name = "b"', 'kind = "openai"', 'base_url = "http://127.0.0.1:9/v1"', 'model = "m"', 'api_key_env = "BENCH_KEY"'];
const plugin = (name: string, args: string[]) => ["[[plugins]]", `name = "${name}"`, `command = ${JSON.stringify(node)}`, `args = [${args.map((a) => JSON.stringify(a)).join(", ")}]`];
const row = (name: string, value: string, goal: string, ok: boolean) => console.log(`${name.padEnd(40)} ${value.padStart(12)}   goal ${goal.padEnd(10)} ${ok ? "ok" : "MISSED"}`);

try {
  // --- 1. per-call overhead ----------------------------------------------------
  writeFileSync(join(home, "config.toml"), [...provider, ...plugin("everything", [everything, "stdio"]), ""].join("\n"));
  const cfg = loadConfig({ cwd: ws, home });
  const mcp = workspaceMcp({ workspace: ws, home, values: cfg.values, loaded: cfg })!;
  await mcp.start();
  const echo = mcp.snapshot().tools.find((t) => t.name === "mcp__everything__echo")!;
  if (!echo) throw new Error(`server did not start: ${mcp.connections[0]?.error}`);
  const gate = new Permissions({ mode: "ask", allow: [], ask: [], deny: [], headless: true, workspace: ws });
  const ctx = { workspace: ws, signal: new AbortController().signal, config: cfg.values } as unknown as ToolContext;
  const viaEngine = async (i: number) => {
    const input = { message: `m${i}` };
    if (gate.check(echo, input).action !== "allow") throw new Error("denied");
    const r = await echo.run(input, ctx);
    if (!r.ok) throw new Error(r.output);
  };
  const direct = new Client({ name: "bench", version: "1" });
  await direct.connect(new StdioClientTransport({ command: node, args: [everything, "stdio"], stderr: "ignore" }));
  const viaSdk = async (i: number) => void (await direct.callTool({ name: "echo", arguments: { message: `m${i}` } }));
  for (let i = 0; i < 30; i++) (await viaEngine(i), await viaSdk(i));
  const e: number[] = [], d: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    let t = performance.now();
    await viaEngine(i);
    e.push(performance.now() - t);
    t = performance.now();
    await viaSdk(i);
    d.push(performance.now() - t);
  }
  await direct.close();
  await mcp.close();
  console.log(`MCP benchmark (${CALLS} interleaved echo calls, medians; ${RUNS} session starts)`);
  console.log(`echo through the engine's tool path: ${median(e).toFixed(3)} ms   direct SDK client: ${median(d).toFixed(3)} ms`);
  row("per-call: engine ÷ direct SDK", `${(median(e) / median(d)).toFixed(2)}×`, "≤ 1.5×", median(e) / median(d) <= 1.5);

  // --- 2. time to first prompt ---------------------------------------------------
  const never = ["-e", "setInterval(() => {}, 1e9)"];
  const five = [...plugin("s1", [everything, "stdio"]), ...plugin("s2", [everything, "stdio"]), ...plugin("s3", [everything, "stdio"]), ...plugin("s4", [everything, "stdio"]), ...plugin("silent", never)];
  let worstStall = 0;
  const firstPrompt = async (servers: string[]) => {
    writeFileSync(join(home, "config.toml"), [...provider, ...servers, ""].join("\n"));
    const t = performance.now();
    const c = loadConfig({ cwd: ws, home });
    const engine = createEngine({ workspace: ws, home, config: c.values, headless: true });
    await engine.createSession();
    const ms = performance.now() - t;
    // While the servers start in the background: the longest the event loop (the UI) is held up.
    if (servers.length) {
      let last = performance.now();
      const end = last + 1500;
      while (performance.now() < end) {
        await Bun.sleep(5);
        const now = performance.now();
        worstStall = Math.max(worstStall, now - last - 5);
        last = now;
      }
    }
    await engine.close();
    return ms;
  };
  const none: number[] = [], withFive: number[] = [];
  await firstPrompt([]);
  for (let i = 0; i < RUNS; i++) {
    none.push(await firstPrompt([]));
    withFive.push(await firstPrompt(five));
  }
  console.log(`session ready, no servers: ${median(none).toFixed(1)} ms   5 servers (1 silent): ${median(withFive).toFixed(1)} ms`);
  const extra = median(withFive) - median(none);
  row("time to first prompt, +5 servers", `+${extra.toFixed(1)} ms`, "≤ +50 ms", extra <= 50);
  console.log(`longest event-loop stall while 5 servers start in the background: ${worstStall.toFixed(1)} ms (no goal; informational)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
