// Setup and doctor benchmark, against the scripted OpenAI server on loopback:
//  - `reasonix setup test` reports the connect latency (median over runs);
//  - `reasonix doctor` finishes its checks in ≤ 150 ms and touches no network.
//   npm run bench -- setup [--runs N]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15;
const main = resolve(import.meta.dir, "../../cli/main.ts");

const work = mkdtempSync(join(tmpdir(), "rx-bench-setup-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const home = join(work, ".reasonix");
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, REASONIX_HOME: home, NO_COLOR: "1" };
const llm = await startScriptedOpenAI([], { models: ["alpha", "beta", "gamma"] });

// Asynchronous spawn: the scripted server answers from this same process.
async function cli(args: string[], stdin?: string): Promise<{ code: number; out: string; wallMs: number }> {
  const t0 = Bun.nanoseconds();
  const p = Bun.spawn([process.execPath, main, ...args], { cwd: work, env, stdin: stdin !== undefined ? new Blob([stdin]) : "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  return { code, out, wallMs: (Bun.nanoseconds() - t0) / 1e6 };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const added = await cli(["setup", "add", "bench", "--base-url", llm.url, "--model", "alpha", "--key-stdin"], "sk-bench");
if (added.code !== 0) throw new Error("setup add failed");

const latency: number[] = [];
const testWall: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await cli(["setup", "test", "bench", "--json"]);
  const j = JSON.parse(r.out);
  if (r.code !== 0 || !j.ok) throw new Error(`setup test failed: ${r.out}`);
  latency.push(j.latencyMs);
  testWall.push(r.wallMs);
}

// doctor: each run is a fresh process, so the sandbox probe is cold every time
// (it is cached per process). elapsedMs is doctor's own timing of its checks.
const before = llm.requests.length;
const checks: number[] = [];
const doctorWall: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await cli(["doctor", "--json"]);
  checks.push(JSON.parse(r.out).elapsedMs);
  doctorWall.push(r.wallMs);
}
const network = llm.requests.length - before;
await llm.close();

const row = (name: string, value: string, goal: string, ok: boolean | null) =>
  console.log(`${name.padEnd(52)} ${value.padStart(10)}   ${goal ? `goal ${goal.padEnd(10)}` : "".padEnd(15)} ${ok === null ? "" : ok ? "ok" : "MISSED"}`);
console.log(`setup/doctor benchmark (${RUNS} runs, medians; scripted server on loopback)`);
row("setup test: connect latency (models)", `${median(latency).toFixed(0)} ms`, "", null);
row("setup test: CLI wall time", `${median(testWall).toFixed(0)} ms`, "", null);
row("doctor: checks (reported elapsedMs)", `${median(checks).toFixed(0)} ms`, "≤ 150 ms", median(checks) <= 150);
row("doctor: CLI wall time (from source, incl. startup)", `${median(doctorWall).toFixed(0)} ms`, "", null);
row("doctor: requests to the provider", String(network), "0", network === 0);
