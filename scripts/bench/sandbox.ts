// Benchmark: wall time a `bash` tool call gains from the OS sandbox.
//   bun scripts/bench/sandbox.ts [--runs N] [--json]
// Runs the same trivial command through runShell() unconfined ("off") and
// under the enforced profile, interleaved so both see the same machine load,
// and reports the median of each and the added median (goal: <= 15 ms).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scanRepos, SCAN_MAX_DEPTH, SCAN_MAX_DIRS } from "../../core/policy/git.ts";
import { createPathPolicy } from "../../core/policy/paths.ts";
import { createSessionTmpDir, probeSandbox, removeSessionTmpDir, runShell, type SandboxMode } from "../../core/sandbox/index.ts";

const GOAL_MS = 15;
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1]) || 40;
const json = args.includes("--json");

const status = await probeSandbox();
if (!status.available) {
  console.error(`sandbox bench skipped: ${status.cause} (fix: ${status.fix})`);
  process.exit(0);
}

const ws = mkdtempSync(join(tmpdir(), "rx-bench-sandbox-"));
const home = mkdtempSync(join(tmpdir(), "rx-bench-home-"));
const policy = createPathPolicy({ cwd: ws, reasonixHome: home });
const sessionTmpDir = createSessionTmpDir();
const command = "echo hi > out.txt && cat out.txt";

async function once(mode: SandboxMode): Promise<number> {
  const t0 = performance.now();
  const r = await runShell(command, { policy, mode, network: false, sessionTmpDir, cwd: ws, timeoutMs: 10_000 });
  const dt = performance.now() - t0;
  if (!r.ok || r.exitCode !== 0 || r.output !== "hi\n") throw new Error(`bench command failed in ${mode} mode: ${JSON.stringify(r)}`);
  return dt;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

try {
  for (let i = 0; i < 3; i++) await once("off"), await once("enforce"); // warm-up
  const direct: number[] = [];
  const sandboxed: number[] = [];
  for (let i = 0; i < runs; i++) {
    direct.push(await once("off"));
    sandboxed.push(await once("enforce"));
  }
  const d = median(direct);
  const s = median(sandboxed);
  const added = s - d;
  // The nested-repository scan runs twice per enforced call (before, to mount
  // git state read-only; after, to find new .git entries). Measured on this
  // checkout, a real project tree; node_modules is skipped by design.
  const scanRoot = join(import.meta.dir, "..", "..");
  const scans: number[] = [];
  let scanned = scanRepos([scanRoot], (p) => p);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    scanned = scanRepos([scanRoot], (p) => p);
    scans.push(performance.now() - t0);
  }
  const scanMs = median(scans);
  const result = { backend: `${status.backend} ${status.version ?? ""}`.trim(), runs, directMedianMs: +d.toFixed(2), sandboxedMedianMs: +s.toFixed(2), addedMedianMs: +added.toFixed(2), ratio: +(s / d).toFixed(2), goalMs: GOAL_MS, pass: added <= GOAL_MS, repoScanMedianMs: +scanMs.toFixed(2), repoScanDirs: scanned.dirsVisited, repoScanBound: { depth: SCAN_MAX_DEPTH, dirs: SCAN_MAX_DIRS } };
  if (json) console.log(JSON.stringify(result));
  else {
    console.log(`sandbox bench (${result.backend}, ${runs} runs each, command: ${command})`);
    console.log(`  direct     median ${d.toFixed(2)} ms`);
    console.log(`  sandboxed  median ${s.toFixed(2)} ms  (x${result.ratio})`);
    console.log(`  added      median ${added.toFixed(2)} ms per call  goal <= ${GOAL_MS} ms: ${result.pass ? "PASS" : "FAIL"}`);
    console.log(`  repo scan  median ${scanMs.toFixed(2)} ms for ${scanned.dirsVisited} dirs of ${scanRoot} (runs twice per call; bound: depth ${SCAN_MAX_DEPTH}, ${SCAN_MAX_DIRS} dirs)`);
  }
  process.exitCode = result.pass ? 0 : 1;
} finally {
  removeSessionTmpDir(sessionTmpDir);
  rmSync(ws, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}
