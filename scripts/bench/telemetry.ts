// Usage counters and startup (issue 31): what telemetry adds before a front
// end does its work, measured in the same run against the same program
// without it.
//   npm run bench -- telemetry [--runs N]
// Two probes are bundled the way releases are (Bun.build, minified): both
// load the config as every front end does; the second also does what
// `reasonix run` now does before its turn — evaluate the counters module and
// make the (empty) counters. The chat does nothing for telemetry before its
// first frame (cli/chat/app.ts loads it after). Each probe runs in fresh
// processes, interleaved, and prints the time since its process started when
// it is ready; the goal is on the difference of the medians. The counters
// module is also loaded alone against an empty module (same import path,
// fresh processes): that difference is its own cost, free of process noise.
// The ping is not on the startup path: it happens at exit, bounded; its time
// against a collector that refuses connections is reported separately.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 40;
const root = join(import.meta.dir, "..", "..");
const work = mkdtempSync(join(tmpdir(), "rx-bench-telemetry-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const home = join(work, "home");

const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) });
const endpoint = `http://127.0.0.1:${dead.port}/v1/counters`;
await dead.stop(true);
const { mkdirSync } = await import("node:fs");
mkdirSync(home, { recursive: true });
writeFileSync(join(home, "config.toml"), `[telemetry]\nmode = "on"\nendpoint = "${endpoint}"\n`);
const { markPinged, saveChoice } = await import("../../core/telemetry/store.ts");
saveChoice(home, "yes");

const src = (name: string, body: string) => {
  const f = join(work, `${name}.ts`);
  writeFileSync(f, body);
  return f;
};
const load = `import { loadConfig } from ${JSON.stringify(join(root, "core/config/load.ts"))};\nconst cfg = loadConfig({ cwd: process.cwd() });\n`;
const entries = [
  src("without", `${load}console.log(JSON.stringify({ ready: performance.now(), keys: Object.keys(cfg.values).length }));\n`),
  src("with", `${load}import { UsageCounters } from ${JSON.stringify(join(root, "core/telemetry/counters.ts"))};\nconst counters = new UsageCounters();\nconsole.log(JSON.stringify({ ready: performance.now(), keys: Object.keys(cfg.values).length, c: counters.empty }));\n`),
  src("exit", `${load}import { UsageCounters } from ${JSON.stringify(join(root, "core/telemetry/counters.ts"))};\nconst counters = new UsageCounters();\ncounters.bump("finish_reason", "stop");\nconst t0 = performance.now();\nconst { TelemetrySession, telemetryConfig } = await import(${JSON.stringify(join(root, "core/telemetry/session.ts"))});\nconst t = new TelemetrySession(process.env.REASONIX_HOME, telemetryConfig(cfg.values), "run", false, counters);\nif (!t.decision.collect) throw new Error(t.decision.reason);\nawait t.finish(1500);\nconsole.log(JSON.stringify({ ready: performance.now() - t0 }));\n`),
];
// The counters module alone, and an empty module, each loaded by a dynamic import in a
// fresh process: the difference is the module's own cost, without the process noise.
const counterChunk = src("counters-only", `export { UsageCounters } from ${JSON.stringify(join(root, "core/telemetry/counters.ts"))};\n`);
const emptyChunk = src("empty-only", "export class UsageCounters { }\n");
const timeImport = (chunk: string) => `const t0 = performance.now();\nconst { UsageCounters } = await import(${JSON.stringify(chunk)});\nnew UsageCounters();\nconsole.log(JSON.stringify({ ready: performance.now() - t0 }));\n`;
entries.push(counterChunk, emptyChunk);
const built = await Bun.build({ entrypoints: entries, outdir: join(work, "out"), target: "bun", minify: true, splitting: false });
if (!built.success) throw new Error(`bundling the probes failed: ${built.logs.join("\n")}`);
const out = (n: string) => join(work, "out", `${n}.js`);
const importCounters = src("import-counters", timeImport(out("counters-only")));
const importEmpty = src("import-empty", timeImport(out("empty-only")));

const env = { ...process.env, REASONIX_HOME: home, REASONIX_TEST_TELEMETRY: "1" } as Record<string, string>;
for (const k of ["CI", "DO_NOT_TRACK", "REASONIX_TELEMETRY"]) delete env[k];
const ready = (file: string): number => {
  const p = Bun.spawnSync([process.execPath, file], { env, cwd: home, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${file}: ${p.stderr.toString()}`);
  return (JSON.parse(p.stdout.toString()) as { ready: number }).ready;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const without: number[] = [], withT: number[] = [], exit: number[] = [], modCounters: number[] = [], modEmpty: number[] = [];
for (let i = 0; i < 3; i++) { ready(out("without")); ready(out("with")); ready(importCounters); ready(importEmpty); }
for (let i = 0; i < RUNS; i++) {
  // Alternate which goes first, so neither always follows the other.
  if (i % 2) { withT.push(ready(out("with"))); without.push(ready(out("without"))); }
  else { without.push(ready(out("without"))); withT.push(ready(out("with"))); }
  if (i % 2) { modCounters.push(ready(importCounters)); modEmpty.push(ready(importEmpty)); }
  else { modEmpty.push(ready(importEmpty)); modCounters.push(ready(importCounters)); }
  if (i < 10) {
    markPinged(home, "1970-01-01"); // every exit run pays the ping
    exit.push(ready(out("exit")));
  }
}
const a = median(without), b = median(withT), added = b - a;
const mod = median(modCounters) - median(modEmpty);
const row = (name: string, value: string, goal: string, ok: boolean) => console.log(`${name.padEnd(46)} ${value.padStart(10)}   goal ${goal.padEnd(8)} ${ok ? "ok" : "MISSED"}`);
console.log(`telemetry startup benchmark (${RUNS} interleaved fresh processes, medians of time-to-ready)`);
console.log(`without telemetry: ${a.toFixed(2)} ms   with the counters: ${b.toFixed(2)} ms`);
row("counters module: load + make, minus empty", `${mod.toFixed(3)} ms`, "≤ 1 ms", mod <= 1);
row("whole process: with − without (noisy, info)", `${added.toFixed(2)} ms`, "", true);
row("whole process: with ÷ without", (b / a).toFixed(3), "", true);
row("at exit: queue + ping, collector refusing", `${median(exit).toFixed(1)} ms`, "≤ 1500", median(exit) <= 1500);
