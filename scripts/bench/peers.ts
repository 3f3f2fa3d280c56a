// Reasonix beside the agents its users would pick instead, on one scripted
// endpoint that answers at once (issue 35; docs/how-fast.md).
//   npm run bench -- peers [--runs N] [--files N] [--stream-tokens N] [--cache DIR] [--no-install] [--only a,b] [--binary PATH] [--no-reasonix]
//
// The peers (@openai/codex, @anthropic-ai/claude-code, opencode-ai) are
// installed with npm into a cache folder outside the repository (default
// ~/.cache/reasonix-bench/peers) and each talks to a scripted server on
// 127.0.0.1 in its own wire format (Responses, Anthropic Messages, Chat
// Completions). The scripted model finds each agent's read and shell tools
// in its requests. A peer that is missing or cannot run offline is skipped
// with the reason. Idle `serve`: exec until the server answers HTTP, its CPU
// until then and its memory after a second idle, for the agents that have
// an HTTP server (Reasonix `serve`, opencode `serve`). Figures: medians of N
// runs (default 3), all agents interleaved; each row's ratio is Reasonix ÷
// the best peer.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startScriptedOpenAI, type ReplyStep, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { startScriptedResponses } from "../../core/testing/scripted-llm-responses.ts";
import { startScriptedAnthropic } from "../../core/testing/scripted-llm-anthropic.ts";
import { fmt, gitWorkspace, hasGnuTime, loadNow, machine, measure, median, type Measured } from "../lib/agent-bench.ts";
import { measureIdleServer, printedUrl } from "../lib/idle-server.ts";
import { defaultCacheDir, installPeers, PEERS, peerStatus, readCall, scriptedAgent, shellCall, type Peer, type PeerRun, type Wire } from "../lib/peers.ts";

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const RUNS = Number(opt("--runs")) || 3;
const FILES = Number(opt("--files")) || 5000;
const ROUNDS = 10;
const STREAM_TOKENS = Number(opt("--stream-tokens")) || 20_000;
const cacheDir = resolve(opt("--cache") ?? defaultCacheDir());
const only = opt("--only")?.split(",");

if (!hasGnuTime()) {
  console.log("SKIPPED peers bench: /usr/bin/time (GNU time) is missing; it measures CPU and peak RSS");
  process.exit(0);
}
const repo = resolve(import.meta.dir, "..", "..");
if (cacheDir === repo || cacheDir.startsWith(repo + "/")) {
  console.error(`peers bench: the cache folder must be outside the repository (${cacheDir})`);
  process.exit(2);
}

const peers = PEERS.filter((p) => !only || only.includes(p.name));
if (!args.includes("--no-install")) {
  const missing = peers.filter((p) => !existsSync(join(cacheDir, p.bin)));
  if (missing.length > 0) {
    console.log(`installing ${missing.map((p) => p.pkg).join(", ")} into ${cacheDir} …`);
    const why = installPeers(cacheDir, missing);
    if (why) console.log(`npm: ${why}`);
  }
}

interface Agent {
  name: string;
  version: string;
  wire: Wire;
  bin: string;
  run(prompt: string, url: string, dir: string): PeerRun;
  /** Its HTTP server, idle (argv after the bin, and env); absent: it has none. */
  serve?(url: string, dir: string): PeerRun;
}

const agents: Agent[] = [];
const skipped: string[] = [];
for (const p of peers) {
  const s = peerStatus(p, cacheDir);
  const serveArgv = p.serveArgv;
  const serve = serveArgv ? (url: string, dir: string) => ({ ...p.run("", url, dir, baseEnv(dir)), argv: serveArgv }) : undefined;
  if (s.ok) agents.push({ name: p.name, version: s.version, wire: p.wire, bin: s.path, run: (prompt, url, dir) => p.run(prompt, url, dir, baseEnv(dir)), ...(serve ? { serve } : {}) });
  else skipped.push(`SKIPPED ${p.name}: ${s.reason}`);
}
for (const line of skipped) console.log(line);

const work = mkdtempSync(join(tmpdir(), "rx-bench-peers-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
function baseEnv(dir: string): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: join(dir, "home"), LANG: "C.UTF-8", TERM: "dumb", NO_COLOR: "1" };
}

if (!args.includes("--no-reasonix")) {
  const binArg = opt("--binary");
  const binary = binArg ? resolve(binArg) : (await import("../lib/built-dist.ts").then((m) => m.builtDist())).binary;
  const { buildInfo } = await import("../../core/version.ts");
  const { writeFileSync } = await import("node:fs");
  agents.unshift({
    name: "reasonix",
    version: buildInfo().version,
    wire: "chat",
    bin: binary,
    run(prompt, url, dir) {
      writeFileSync(join(dir, "config.toml"), ['default_model = "bench"', "[[providers]]", 'name = "bench"', 'kind = "openai"', `base_url = "${url}"`, 'model = "bench-model"', 'api_key_env = "BENCH_KEY"', ""].join("\n"));
      writeFileSync(join(dir, ".env"), "BENCH_KEY=sk-bench\n", { mode: 0o600 });
      return { argv: ["run", "--auto", prompt], env: { ...baseEnv(dir), REASONIX_HOME: dir } };
    },
    serve(url, dir) {
      const r = this.run("", url, dir);
      writeFileSync(join(dir, "token"), "bench-token-0123456789abcdefghijkl", { mode: 0o600 });
      return { ...r, argv: ["serve", "--json", "--addr", "127.0.0.1:0", "--token-file", join(dir, "token"), "--workspace", ws] };
    },
  });
}
if (agents.length === 0) {
  console.log("peers bench: nothing to run");
  process.exit(0);
}

const ws = join(work, "ws");
gitWorkspace(ws, FILES);
mkdirSync(join(work, "homes"), { recursive: true });

type Scenario = "version" | "oneShot" | "read" | "bash" | "stream" | "serve";
const SCENARIOS: Scenario[] = ["version", "oneShot", "read", "bash", "stream", "serve"];
const start = (wire: Wire, steps: ((r: any) => ReplyStep)[]): Promise<ScriptedServer> =>
  (wire === "chat" ? startScriptedOpenAI : wire === "responses" ? startScriptedResponses : startScriptedAnthropic)(steps);

let runSeq = 0;
/** One run of `a` in scenario `s`; throws with the reason when the agent failed. */
async function once(a: Agent, s: Scenario): Promise<Measured> {
  const dir = join(work, "homes", `${a.name}-${++runSeq}`);
  mkdirSync(dir, { recursive: true });
  if (s === "version") return measure([a.bin, "--version"], { cwd: ws, env: baseEnv(dir) });
  if (s === "serve") {
    // No model request is made: the URL only fills the agent's config.
    const r = a.serve!("http://127.0.0.1:9/v1", dir);
    const m = await measureIdleServer([a.bin, ...r.argv], { cwd: ws, env: r.env, urlFrom: printedUrl, timeoutMs: 300_000 });
    return { wallMs: m.readyMs, cpuMs: m.readyCpuMs, rssMiB: m.rssMiB, code: 0, stdout: "", stderr: "" };
  }
  const n = s === "read" || s === "bash" ? ROUNDS : 0;
  const final: ReplyStep = s === "stream" ? { text: "word ".repeat(STREAM_TOKENS).trimEnd(), chunkSize: 5 } : { text: "done" };
  const agent = scriptedAgent(n, (tools) => (s === "read" ? readCall(tools, "README.md", join(ws, "README.md")) : shellCall(tools, "true")), final);
  const llm = await start(a.wire, Array.from({ length: 4 * ROUNDS + 20 }, () => agent.step));
  try {
    const url = a.wire === "anthropic" ? llm.origin : llm.url;
    const r = a.run(s === "stream" ? "write a long answer" : "do the task", url, dir);
    const m = await measure([a.bin, ...r.argv], { cwd: ws, env: r.env, timeoutMs: 300_000 });
    if (m.code !== 0) throw new Error(`exited ${m.code}: ${(m.stderr || m.stdout).trim().split("\n").slice(-2).join(" / ").slice(0, 300)}`);
    if (agent.rounds() !== n) throw new Error(`made ${agent.rounds()} of ${n} tool rounds`);
    return m;
  } finally {
    await llm.close();
  }
}

const results = new Map<string, Map<Scenario, Measured[]>>();
/** "agent/scenario" → why it failed (that scenario is not run again; the agent's others go on). */
const failed = new Map<string, string>();
const loads = [loadNow()];
for (let i = 0; i < RUNS; i++) {
  for (const s of SCENARIOS) {
    for (const a of agents) {
      if (failed.has(`${a.name}/${s}`) || (s === "serve" && !a.serve)) continue;
      try {
        const m = await once(a, s);
        const per = results.get(a.name) ?? new Map();
        per.set(s, [...(per.get(s) ?? []), m]);
        results.set(a.name, per);
      } catch (e) {
        failed.set(`${a.name}/${s}`, (e as Error).message);
        results.get(a.name)?.delete(s);
      }
    }
  }
  loads.push(loadNow());
}

// An agent that finished no run at all is skipped; one that failed some scenarios shows "—" there.
const ran = agents.filter((a) => results.has(a.name) && results.get(a.name)!.size > 0);
for (const a of agents) if (!ran.includes(a)) console.log(`SKIPPED ${a.name}: could not run offline against the scripted endpoint (${[...failed].filter(([k]) => k.startsWith(`${a.name}/`)).map(([k, v]) => `${k.split("/")[1]}: ${v}`).join("; ")})`);
for (const [k, v] of failed) if (ran.some((a) => k.startsWith(`${a.name}/`))) console.log(`not measured: ${k} (${v})`);
const wallOf = (a: string, s: Scenario) => median((results.get(a)?.get(s) ?? []).map((m) => m.wallMs));
const cpuOf = (a: string, s: Scenario) => median((results.get(a)?.get(s) ?? []).map((m) => m.cpuMs));
const rssOf = (a: string, s: Scenario) => median((results.get(a)?.get(s) ?? []).map((m) => m.rssMiB));
const rows: { label: string; value: (a: string) => number; unit: string; digits?: number }[] = [
  { label: "--version", value: (a) => wallOf(a, "version"), unit: "ms" },
  { label: "one-request run", value: (a) => wallOf(a, "oneShot"), unit: "ms" },
  { label: "  its CPU", value: (a) => cpuOf(a, "oneShot"), unit: "ms" },
  { label: "  its peak RSS", value: (a) => rssOf(a, "oneShot"), unit: "MiB" },
  { label: `+ ${ROUNDS} read rounds`, value: (a) => wallOf(a, "read") - wallOf(a, "oneShot"), unit: "ms" },
  { label: `+ ${ROUNDS} bash rounds (true)`, value: (a) => wallOf(a, "bash") - wallOf(a, "oneShot"), unit: "ms" },
  { label: `${STREAM_TOKENS.toLocaleString("en")}-token stream`, value: (a) => wallOf(a, "stream"), unit: "ms" },
  { label: "  its CPU", value: (a) => cpuOf(a, "stream"), unit: "ms" },
  { label: "  its peak RSS", value: (a) => rssOf(a, "stream"), unit: "MiB" },
  { label: "idle serve: ready", value: (a) => wallOf(a, "serve"), unit: "ms" },
  { label: "  its CPU until ready", value: (a) => cpuOf(a, "serve"), unit: "ms" },
  { label: "  its RSS after 1 s idle", value: (a) => rssOf(a, "serve"), unit: "MiB" },
];

console.log(`\npeers bench: ${RUNS} interleaved runs each, medians; ${machine()}`);
console.log(`load average (1-min) during the runs: ${loads.map((l) => l.split(" ")[0]).join(", ")}; workspace: git, ${FILES.toLocaleString("en")} files`);
const W = 14;
console.log(`${"".padEnd(26)}${ran.map((a) => a.name.padStart(W)).join("")}${"÷ best peer".padStart(W)}`);
console.log(`${"version".padEnd(26)}${ran.map((a) => (/\d+\.\d+\.\d+/.exec(a.version)?.[0] ?? a.version).slice(0, W - 2).padStart(W)).join("")}`);
for (const r of rows) {
  const vals = ran.map((a) => r.value(a.name));
  const peerVals = ran.filter((a) => a.name !== "reasonix").map((a) => r.value(a.name)).filter(Number.isFinite);
  const ours = ran.find((a) => a.name === "reasonix") ? r.value("reasonix") : NaN;
  const best = peerVals.length ? Math.min(...peerVals) : NaN;
  const ratio = Number.isFinite(ours) && best > 0 ? `${(ours / best).toFixed(2)}×` : "—";
  console.log(`${r.label.padEnd(26)}${vals.map((v) => fmt(v, r.unit, r.digits ?? 0).padStart(W)).join("")}${ratio.padStart(W)}`);
}
const noServer = ran.filter((a) => !a.serve).map((a) => a.name);
if (noServer.length) console.log(`idle serve: ${noServer.join(", ")} ${noServer.length === 1 ? "has" : "have"} no HTTP server mode ("—")`);
