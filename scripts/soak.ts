// `npm run test:soak -- <files…> [--times N] [--load K]`: runs the given test
// files N times (default 10) with `bun test`, optionally while K busy-loop
// processes (scripts/lib/busy-loop.ts) load the CPU, then prints each test's
// pass rate, its slowest run and the slowest whole run. Exits 1 if any test
// failed in any run. Other `bun test` flags (e.g. --timeout=…, -t …) are passed on.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseJunit, soakSummary, type SoakRun } from "./lib/test-report.ts";

const usage = "usage: npm run test:soak -- <test files…> [--times N] [--load K] [bun test flags]";
const args = process.argv.slice(2);
let times = 10;
let load = 0;
const pass: string[] = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  const m = /^--(times|load)(?:=(.*))?$/.exec(a);
  if (!m) {
    pass.push(a);
    continue;
  }
  const raw = m[2] ?? args[++i];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < (m[1] === "times" ? 1 : 0) || n > 1000) {
    console.error(`test:soak: --${m[1]} needs a whole number${m[1] === "times" ? " ≥ 1" : " ≥ 0"} (got ${raw ?? "nothing"})\n${usage}`);
    process.exit(2);
  }
  if (m[1] === "times") times = n;
  else load = n;
}
// At least one existing file or folder: a filter alone (-t …) would soak the whole suite.
if (!pass.some((a) => !a.startsWith("-") && existsSync(a))) {
  console.error(`test:soak: name the test files to soak (existing paths)\n${usage}`);
  process.exit(2);
}
// The same per-test limit as `npm test` (scripts/test.ts).
if (!pass.some((a) => a.startsWith("--timeout"))) pass.unshift("--timeout=60000");

const dir = mkdtempSync(join(tmpdir(), "rx-soak-"));
const loaders = Array.from({ length: load }, () =>
  Bun.spawn([process.execPath, join(import.meta.dir, "lib", "busy-loop.ts"), String(Date.now() + 6 * 3600_000)], { stdio: ["ignore", "ignore", "inherit"] }),
);
const stopLoad = () => {
  for (const l of loaders) l.kill("SIGKILL");
};
for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.on(sig, () => {
    stopLoad();
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });

const runs: SoakRun[] = [];
try {
  for (let index = 1; index <= times; index++) {
    const out = join(dir, `run-${index}.xml`);
    process.stdout.write(`\n── soak run ${index}/${times}${load > 0 ? ` (load ${load})` : ""} ──\n`);
    const started = performance.now();
    const proc = Bun.spawn([process.execPath, "test", "--reporter=junit", `--reporter-outfile=${out}`, ...pass], { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, FORCE_COLOR: "0" } });
    const exitCode = await proc.exited;
    const seconds = (performance.now() - started) / 1000;
    let xml = "";
    try {
      xml = readFileSync(out, "utf8");
    } catch {
      // No report (bun crashed): the summary counts the run as failed by its exit code.
    }
    runs.push({ index, seconds, exitCode, report: parseJunit(xml) });
  }
} finally {
  stopLoad();
  rmSync(dir, { recursive: true, force: true });
}
const summary = soakSummary(runs, load);
process.stdout.write(`\n${summary.lines.join("\n")}\n`);
process.exit(summary.failed ? 1 : 0);
