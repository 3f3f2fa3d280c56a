// MCP benchmark.
// 1. Per-call overhead: `mcp__everything__echo` as the engine runs it (the
//    permission check, the tool adapter, core/mcp's connection to a server
//    started inside the sandbox, result formatting) ÷ the same call made
//    directly with the SDK Client on an unsandboxed server. Goal ≤ 1.5×.
// 2. Time to first prompt: createEngine + createSession with 5 configured
//    servers, one of which never answers, minus the same with none.
//    Goal ≤ +50 ms (servers start in the background).
// 3. Event-loop stall while servers start: a 10 ms timer's worst lateness
//    while the engine starts 3 stdio servers in the background (sandboxed,
//    in this repository as the workspace, so the sandbox's git scan is real
//    work) ÷ the same while the SDK Client alone starts the same 3 servers
//    unsandboxed (spawn, initialize, tools/list: the part no client avoids).
//    Medians over the runs. Goal ≤ 1.5×.
//
//   bun scripts/bench/mcp.ts [--calls 300] [--runs 10] [--stall-runs 7] [--stall-only]
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
const STALL_RUNS = opt("stall-runs", 7);
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
  if (!argv.includes("--stall-only")) await callsAndFirstPrompt();
  await startStall();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);

async function callsAndFirstPrompt() {
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
}

async function startStall() {

  // --- 3. event-loop stall while 3 servers start ------------------------------
  const repo = resolve(import.meta.dir, "../..");
  const three = [...plugin("s1", [everything, "stdio"]), ...plugin("s2", [everything, "stdio"]), ...plugin("s3", [everything, "stdio"])];
  /** The worst lateness of a 10 ms timer while `work` runs (and 100 ms after). */
  const stallDuring = async (work: () => Promise<unknown>): Promise<number> => {
    let last = performance.now();
    let worst = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last - 10);
      last = now;
    }, 10);
    await work();
    await Bun.sleep(100);
    clearInterval(timer);
    return worst;
  };
  const viaEngineStart = async () => {
    writeFileSync(join(home, "config.toml"), [...provider, ...three, ""].join("\n"));
    const c = loadConfig({ cwd: repo, home });
    const engine = createEngine({ workspace: repo, home, config: c.values, headless: true });
    await engine.createSession();
    const worst = await stallDuring(() => engine.mcpStarted());
    const failed = engine.mcpServers().filter((s) => s.status !== "ready");
    await engine.close();
    if (failed.length) throw new Error(`server did not start: ${failed[0]!.error}`);
    return worst;
  };
  const viaSdkStart = async () => {
    const clients: Client[] = [];
    const worst = await stallDuring(() =>
      Promise.all(
        [1, 2, 3].map(async () => {
          const c = new Client({ name: "bench", version: "1" });
          clients.push(c);
          await c.connect(new StdioClientTransport({ command: node, args: [everything, "stdio"], stderr: "ignore" }));
          await c.listTools();
        }),
      ),
    );
    await Promise.all(clients.map((c) => c.close()));
    return worst;
  };
  await viaEngineStart();
  await viaSdkStart();
  const stallE: number[] = [], stallS: number[] = [];
  for (let i = 0; i < STALL_RUNS; i++) {
    stallE.push(await viaEngineStart());
    stallS.push(await viaSdkStart());
  }
  console.log(`worst timer lateness while 3 servers start: engine ${median(stallE).toFixed(1)} ms   SDK client alone ${median(stallS).toFixed(1)} ms (medians of ${STALL_RUNS})`);
  const ratio = median(stallE) / Math.max(1, median(stallS));
  row("start stall: engine ÷ SDK client", `${ratio.toFixed(2)}×`, "≤ 1.5×", ratio <= 1.5);
}
