// Startup benchmark: our compiled binary against a bare Bun hello-world
// compiled by the same Bun with the same flags, measured side by side.
//   bun scripts/bench/startup.ts [--runs N]
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtDist } from "../lib/built-dist.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 40;

const work = mkdtempSync(join(tmpdir(), "rx-bench-startup-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
const hello = join(work, "hello");
const r = await Bun.build({
  entrypoints: [join(work, "hello.ts")],
  compile: { outfile: hello, autoloadDotenv: false, autoloadBunfig: false },
  splitting: true,
  bytecode: true,
  format: "esm",
  minify: true,
});
if (!r.success) throw new Error("hello-world build failed");
const { binary } = await builtDist();

function wallMs(argv: string[]): number {
  const t0 = Bun.nanoseconds();
  const p = Bun.spawnSync(argv, { stdout: "ignore", stderr: "ignore", cwd: work });
  if (p.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${p.exitCode}`);
  return (Bun.nanoseconds() - t0) / 1e6;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

// Warm the page cache, then interleave so both see the same machine noise.
for (let i = 0; i < 3; i++) { wallMs([hello]); wallMs([binary, "--version"]); wallMs([binary, "--help"]); }
const h: number[] = [], v: number[] = [], help: number[] = [];
for (let i = 0; i < RUNS; i++) {
  h.push(wallMs([hello]));
  v.push(wallMs([binary, "--version"]));
  help.push(wallMs([binary, "--help"]));
}
const sizeDiff = (statSync(binary).size - statSync(hello).size) / 1024 / 1024;
const row = (name: string, value: string, goal: string, ok: boolean) =>
  console.log(`${name.padEnd(34)} ${value.padStart(10)}   goal ${goal.padEnd(10)} ${ok ? "ok" : "MISSED"}`);
console.log(`startup benchmark (${RUNS} interleaved runs, medians)`);
console.log(`hello-world: ${median(h).toFixed(2)} ms   reasonix --version: ${median(v).toFixed(2)} ms`);
row("--version ÷ hello-world", (median(v) / median(h)).toFixed(2), "≤ 2.0", median(v) / median(h) <= 2);
row("--help wall time", `${median(help).toFixed(1)} ms`, "≤ 35 ms", median(help) <= 35);
row("binary size − hello-world size", `${sizeDiff.toFixed(2)} MiB`, "≤ 10 MiB", sizeDiff <= 10);

// The workspace-trust check on the way into `reasonix run`: hash the project
// file, find the approval among the user's records, filter what it may set.
// Measured in process, as the part of loadConfig that trust added, with a
// user config holding 200 approved workspaces.
{
  const { loadConfig } = await import("../../core/config/load.ts");
  const { trustWorkspace } = await import("../../core/trust/report.ts");
  const { mkdirSync } = await import("node:fs");
  const home = join(work, "trust-home");
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "config.toml"), '[[providers]]\nname = "p"\nkind = "openai"\nbase_url = "http://127.0.0.1:1/v1"\nmodel = "m"\n[permissions]\ndeny = ["Bash(curl:*)"]\n');
  const project = '[permissions]\nmode = "auto"\nallow = ["Bash(npm test)", "Bash(npm run lint)"]\ndeny = ["Bash(rm -rf:*)"]\n[sandbox]\nforbid_read = ["secrets"]\n[agent]\nmax_steps = 30\n';
  let ws = "";
  for (let i = 0; i < 200; i++) {
    ws = join(work, `ws-${i}`);
    mkdirSync(ws);
    writeFileSync(join(ws, "reasonix.toml"), project);
    trustWorkspace(ws, home);
  }
  const time = (f: () => void, n = 300) => {
    const xs: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = Bun.nanoseconds();
      f();
      xs.push((Bun.nanoseconds() - t0) / 1e6);
    }
    return median(xs);
  };
  const withTrust = time(() => loadConfig({ cwd: ws, home }));
  const userOnly = time(() => loadConfig({ cwd: ws, home, noProject: true }));
  // The trust step alone, as loadConfig runs it: digest, record lookup, policy filter.
  const { sha256 } = await import("../../core/trust/inputs.ts");
  const { inputTrusted, trustState } = await import("../../core/trust/index.ts");
  const { restrictProject } = await import("../../core/trust/policy.ts");
  const { readFileSync } = await import("node:fs");
  const user = loadConfig({ home, noProject: true }).values;
  const data = Bun.TOML.parse(project) as Record<string, unknown>;
  const step = time(() => {
    const raw = readFileSync(join(ws, "reasonix.toml"));
    const digest = sha256(raw);
    const trusted = inputTrusted(trustState(ws, user), "reasonix.toml", { rel: "reasonix.toml", sha256: digest, bytes: raw.length });
    restrictProject({ data, text: project, file: "reasonix.toml", user, workspace: ws, trusted });
  }, 1000);
  console.log(`loadConfig: ${withTrust.toFixed(3)} ms with a trusted project (200 records), ${userOnly.toFixed(3)} ms user file only`);
  row("trust check added to startup", `${step.toFixed(3)} ms`, "≤ 1 ms", step <= 1);
}
