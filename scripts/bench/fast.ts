// How fast is a Reasonix round: the compiled binary from outside, against a
// scripted endpoint that answers at once (issue 35; docs/how-fast.md).
//   npm run bench -- fast [--runs N] [--files N] [--binary PATH] [--json]
//
// Each figure is the median of N runs (default 6), all scenarios interleaved
// so they see the same machine load; references measured in the same run:
//   - `reasonix --version` (the process start the binary cannot avoid);
//   - `bash -c true` spawned directly (what a bash round cannot avoid).
// Goals, as ratios and differences against those references:
//   - one-request `run` <= 4 x `--version` (100 ms on an idle 2-core box);
//   - per bash round (sandbox on, a git workspace of 5,000 files):
//     <= 15 ms over `bash -c true`;
//   - per read_file round <= 3 ms;
//   - a 20,000-token streamed answer <= 0.4 s of CPU;
//   - one-shot peak RSS <= 60 MiB.
// Idle `reasonix serve` (no goal; shown beside a bare Bun.serve compiled like
// our binary, in the same run): exec until it answers HTTP, the CPU spent
// until then, and its memory after a second idle.
// A last traced run (REASONIX_TRACE) splits a bash round into its steps and
// the streamed answer into its model step (model:stream); a traced one-request
// run shows its startup milestones and its log syncs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startScriptedOpenAI, type ScriptStep } from "../../core/testing/scripted-llm.ts";
import { probeSandbox } from "../../core/sandbox/index.ts";
import { answer, fmt, gitWorkspace, hasGnuTime, longAnswer, loadNow, machine, measure, median, rounds, type Measured } from "../lib/agent-bench.ts";
import { builtDist } from "../lib/built-dist.ts";
import { compileBareServer, measureIdleServer, printedUrl, type IdleServer } from "../lib/idle-server.ts";

const args = process.argv.slice(2);
const opt = (name: string, def: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) || def : def);
const RUNS = opt("--runs", 6);
const FILES = opt("--files", 5000);
const ROUNDS = 10;
const STREAM_TOKENS = 20_000;
const json = args.includes("--json");

if (!hasGnuTime()) {
  console.log("SKIPPED fast bench: /usr/bin/time (GNU time) is missing; it measures CPU and peak RSS");
  process.exit(0);
}
const sandbox = await probeSandbox();
if (!sandbox.available) {
  console.log(`SKIPPED fast bench: the bash rounds run sandboxed and ${sandbox.cause} (fix: ${sandbox.fix})`);
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), "rx-bench-fast-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const binArg = args.indexOf("--binary");
const binary = binArg >= 0 ? resolve(args[binArg + 1]!) : (await builtDist()).binary;
const ws = join(work, "ws");
gitWorkspace(ws, FILES);
const home = join(work, "home");
const llm = await startScriptedOpenAI([]);
const { mkdirSync } = await import("node:fs");
mkdirSync(home, { recursive: true });
writeFileSync(
  join(home, "config.toml"),
  ['default_model = "bench"', "[[providers]]", 'name = "bench"', 'kind = "openai"', `base_url = "${llm.url}"`, 'model = "bench-model"', 'api_key_env = "BENCH_KEY"', "[sandbox]", 'bash = "enforce"', ""].join("\n"),
);
writeFileSync(join(home, ".env"), "BENCH_KEY=sk-bench\n", { mode: 0o600 });
const env = { PATH: process.env.PATH, HOME: process.env.HOME, REASONIX_HOME: home, LANG: "C.UTF-8" };

const read = () => ({ name: "read_file", arguments: { path: "README.md" } });
const bash = () => ({ name: "bash", arguments: { command: "true" } });
const scenarios: Record<string, { steps: () => ScriptStep[]; argv: string[] }> = {
  version: { steps: () => [], argv: ["--version"] },
  oneShot: { steps: () => answer(), argv: ["run", "hi"] },
  read: { steps: () => rounds(ROUNDS, read), argv: ["run", "--auto", "read it"] },
  bash: { steps: () => rounds(ROUNDS, bash), argv: ["run", "--auto", "run it"] },
  stream: { steps: () => longAnswer(STREAM_TOKENS), argv: ["run", "write"] },
};

async function runOnce(name: string, extraEnv: Record<string, string> = {}): Promise<Measured> {
  const s = scenarios[name]!;
  llm.push(...s.steps());
  const m = await measure([binary, ...s.argv], { cwd: ws, env: { ...env, ...extraEnv } });
  if (m.code !== 0) throw new Error(`${name}: reasonix exited ${m.code}: ${m.stderr.slice(0, 500)}`);
  if (llm.pending() !== 0) throw new Error(`${name}: ${llm.pending()} scripted steps left (the run did not do what the scenario asked)`);
  return m;
}

const refBash = () => measure(["bash", "-c", "true"], { cwd: ws, env });
const bareServe = await compileBareServer(work);
writeFileSync(join(work, "token"), "bench-token-0123456789abcdefghijkl", { mode: 0o600 });
const idle = { serve: [] as IdleServer[], bare: [] as IdleServer[] };
const serveOnce = () => measureIdleServer([binary, "serve", "--json", "--addr", "127.0.0.1:0", "--token-file", join(work, "token"), "--workspace", ws], { cwd: ws, env, urlFrom: printedUrl });
const bareOnce = () => measureIdleServer([bareServe], { cwd: ws, env, urlFrom: printedUrl });
const results: Record<string, Measured[]> = { bashTrue: [] };
for (const k of Object.keys(scenarios)) results[k] = [];
const loads: string[] = [loadNow()];
for (const k of Object.keys(scenarios)) await runOnce(k); // warm the page cache and the git watch's first walk path
await serveOnce();
await bareOnce();
for (let i = 0; i < RUNS; i++) {
  for (const k of Object.keys(scenarios)) results[k]!.push(await runOnce(k));
  for (let j = 0; j < ROUNDS; j++) results.bashTrue!.push(await refBash());
  idle.serve.push(await serveOnce());
  idle.bare.push(await bareOnce());
  loads.push(loadNow());
}

// The traced run: each bash round's steps (core/trace.ts marks).
const traceFile = join(work, "trace.jsonl");
await runOnce("bash", { REASONIX_TRACE: traceFile });
const steps = new Map<string, number[]>();
type Mark = { mark: string; ms: number; cpuMs: number; durMs?: number; deltas?: number; emitMs?: number };
const readMarks = (): Mark[] => readFileSync(traceFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
for (const m of readMarks()) if (m.durMs !== undefined) steps.set(m.mark, [...(steps.get(m.mark) ?? []), m.durMs]);
// The traced streamed answer: CPU from the first response byte to the complete answer, and the part spent handing deltas on.
rmSync(traceFile);
await runOnce("stream", { REASONIX_TRACE: traceFile });
const sm = readMarks();
const response = sm.find((m) => m.mark === "response");
const modelStream = sm.find((m) => m.mark === "model:stream");
const streamTrace = response && modelStream ? { cpuMs: modelStream.cpuMs - response.cpuMs, wallMs: modelStream.ms - response.ms, deltas: modelStream.deltas, emitMs: modelStream.emitMs } : undefined;
// The traced one-request run: its startup milestones (ms since exec) and the log syncs it waited on or ran beside.
rmSync(traceFile);
await runOnce("oneShot", { REASONIX_TRACE: traceFile });
const om = readMarks();
const oneShotTrace = {
  marks: om.filter((m) => m.durMs === undefined).map((m) => ({ mark: m.mark, ms: m.ms, cpuMs: m.cpuMs })),
  fsyncs: om.filter((m) => m.mark === "log:fsync").map((m) => m.durMs!),
};
await llm.close();

const med = (k: string, f: (m: Measured) => number) => median(results[k]!.map(f));
const wall = (k: string) => med(k, (m) => m.wallMs);
const version = wall("version");
const oneShot = wall("oneShot");
const bashTrue = wall("bashTrue");
const perRead = (wall("read") - oneShot) / ROUNDS;
const perBash = (wall("bash") - oneShot) / ROUNDS;
const streamCpu = med("stream", (m) => m.cpuMs);
const rss = med("oneShot", (m) => m.rssMiB);
const cpuRatio = med("oneShot", (m) => m.cpuMs) / med("version", (m) => m.cpuMs);
const goals = [
  { what: "one-request run ÷ --version", value: oneShot / version, shown: `${(oneShot / version).toFixed(2)}×`, goal: "≤ 4×", ok: oneShot / version <= 4 },
  { what: "bash round − bash -c true", value: perBash - bashTrue, shown: fmt(perBash - bashTrue, "ms", 1), goal: "≤ 15 ms", ok: perBash - bashTrue <= 15 },
  { what: "read_file round", value: perRead, shown: fmt(perRead, "ms", 1), goal: "≤ 3 ms", ok: perRead <= 3 },
  { what: `${STREAM_TOKENS.toLocaleString("en")}-token stream, CPU`, value: streamCpu, shown: fmt(streamCpu, "ms"), goal: "≤ 400 ms", ok: streamCpu <= 400 },
  { what: "one-shot peak RSS", value: rss, shown: fmt(rss, "MiB", 1), goal: "≤ 60 MiB", ok: rss <= 60 },
];
const stepTable = [...steps].map(([mark, xs]) => ({ mark, medianMs: +median(xs).toFixed(2), count: xs.length }));
const idleMed = (k: "serve" | "bare", f: (x: IdleServer) => number) => median(idle[k].map(f));
const serveFig = { readyMs: idleMed("serve", (x) => x.readyMs), readyCpuMs: idleMed("serve", (x) => x.readyCpuMs), rssMiB: idleMed("serve", (x) => x.rssMiB), bareReadyMs: idleMed("bare", (x) => x.readyMs), bareRssMiB: idleMed("bare", (x) => x.rssMiB) };

if (json) {
  console.log(JSON.stringify({ machine: machine(), loads, runs: RUNS, files: FILES, version, oneShot, cpuRatio, bashTrue, perRead, perBash, streamCpu, rss, goals, steps: stepTable, streamTrace, oneShotTrace, idleServe: serveFig }));
} else {
  console.log(`fast bench: ${RUNS} interleaved runs, medians; ${machine()}`);
  console.log(`load average during the runs (1-min): ${loads.map((l) => l.split(" ")[0]).join(", ")}`);
  console.log(`binary: ${binary}; workspace: git, ${FILES.toLocaleString("en")} files; sandbox: ${sandbox.backend} (on)`);
  const row = (a: string, b: string, c = "") => console.log(`  ${a.padEnd(36)} ${b.padStart(12)}  ${c}`);
  row("--version", fmt(version, "ms", 1), `${fmt(med("version", (m) => m.cpuMs), "ms CPU")}, ${fmt(med("version", (m) => m.rssMiB), "MiB", 1)}`);
  row("one-request run", fmt(oneShot, "ms", 1), `${fmt(med("oneShot", (m) => m.cpuMs), "ms CPU")}, ${fmt(rss, "MiB", 1)}`);
  const cpuPer = (k: string) => (med(k, (m) => m.cpuMs) - med("oneShot", (m) => m.cpuMs)) / ROUNDS;
  row(`+ ${ROUNDS} read_file rounds`, fmt(wall("read") - oneShot, "ms", 1), `${fmt(perRead, "ms", 1)} per round (${fmt(cpuPer("read"), "ms CPU", 1)})`);
  row(`+ ${ROUNDS} bash rounds (true, sandboxed)`, fmt(wall("bash") - oneShot, "ms", 1), `${fmt(perBash, "ms", 1)} per round (${fmt(cpuPer("bash"), "ms CPU", 1)}, bwrap and bash included); bash -c true alone ${fmt(bashTrue, "ms", 1)} (${fmt(med("bashTrue", (m) => m.cpuMs), "ms CPU", 1)})`);
  row(`${STREAM_TOKENS.toLocaleString("en")}-token streamed answer`, fmt(wall("stream"), "ms", 1), `${fmt(streamCpu, "ms CPU")}, ${fmt(med("stream", (m) => m.rssMiB), "MiB", 1)}`);
  row("idle serve: ready", fmt(serveFig.readyMs, "ms", 1), `${fmt(serveFig.readyCpuMs, "ms CPU")}; bare Bun.serve ${fmt(serveFig.bareReadyMs, "ms", 1)} (${(serveFig.readyMs / serveFig.bareReadyMs).toFixed(1)}×)`);
  row("idle serve: memory after 1 s", fmt(serveFig.rssMiB, "MiB", 1), `bare Bun.serve ${fmt(serveFig.bareRssMiB, "MiB", 1)} (+${fmt(serveFig.rssMiB - serveFig.bareRssMiB, "MiB", 1)})`);
  console.log("goals:");
  for (const g of goals) console.log(`  ${g.what.padEnd(36)} ${g.shown.padStart(12)}  goal ${g.goal.padEnd(9)} ${g.ok ? "ok" : "MISSED"}`);
  // CPU time barely grows with the machine's load; wall time does. Shown for reading a busy run.
  // GNU time counts CPU in 10 ms ticks: a --version of 0 ms has no ratio.
  if (Number.isFinite(cpuRatio)) console.log(`  (CPU: one-request run ÷ --version ${cpuRatio.toFixed(2)}×)`);
  console.log("one traced bash run, median per step (REASONIX_TRACE):");
  for (const s of stepTable) console.log(`  ${s.mark.padEnd(20)} ${s.medianMs.toFixed(2).padStart(8)} ms  ×${s.count}`);
  console.log(`one traced one-request run (ms since exec): ${oneShotTrace.marks.map((m) => `${m.mark} ${m.ms.toFixed(1)}`).join(", ")}`);
  console.log(`  its log syncs (beside the request, except the one before run:done): ${oneShotTrace.fsyncs.map((d) => d.toFixed(2)).join(", ")} ms`);
  if (streamTrace) console.log(`one traced streamed answer: ${fmt(streamTrace.cpuMs, "ms CPU", 1)} from the response to the whole answer (${fmt(streamTrace.wallMs, "ms", 1)} wall), ${streamTrace.deltas} deltas, ${fmt(streamTrace.emitMs ?? NaN, "ms", 1)} handing them to the front end`);
}
