// Benchmark: planted-git-state detection (core/policy/git-watch.ts) on a big workspace.
//   bun scripts/bench/git-state.ts [--files N] [--runs N] [--json]
// Generates a git workspace of N files (default 100,000: 40% tracked sources,
// 60% in an ignored node_modules), then measures, interleaved so all see the
// same machine load:
//   - the first walk (every directory, node_modules included): before the
//     first bash command, or at session start after a killed run;
//   - per command: what a bash call adds (the check after it, the command
//     having created one file);
//   - `git status` on the same tree, as the reference.
// Goals (issue 25): <= 50 ms median per command, <= 300 ms at session start.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitStateChanges, watchGitState } from "../../core/policy/git-watch.ts";

const PER_COMMAND_GOAL_MS = 50;
const START_GOAL_MS = 300;
const args = process.argv.slice(2);
const opt = (name: string, def: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) || def : def);
const files = opt("--files", 100_000);
const runs = opt("--runs", 15);
const json = args.includes("--json");

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** `count` files, 10 per directory, directories 10 wide: a tree about 4 levels deep. */
function generate(root: string, count: number): number {
  let dirs = 0;
  for (let i = 0; i < count; i += 10) {
    const d = Math.floor(i / 10);
    const dir = join(root, `d${d % 10}`, `d${Math.floor(d / 10) % 10}`, `d${Math.floor(d / 100) % 10}`, `p${Math.floor(d / 1000)}`);
    mkdirSync(dir, { recursive: true });
    dirs++;
    for (let j = 0; j < 10 && i + j < count; j++) writeFileSync(join(dir, `f${j}.txt`), "x\n");
  }
  return dirs;
}

const ws = mkdtempSync(join(tmpdir(), "rx-bench-gitstate-"));
const git = (...a: string[]) => {
  const t0 = performance.now();
  const r = spawnSync("git", ["-c", "user.email=b@example.invalid", "-c", "user.name=b", ...a], { cwd: ws, encoding: "utf8", maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`git ${a.join(" ")}: ${r.stderr}`);
  return performance.now() - t0;
};

try {
  const tracked = Math.round(files * 0.4);
  generate(join(ws, "src"), tracked);
  generate(join(ws, "node_modules"), files - tracked);
  writeFileSync(join(ws, ".gitignore"), "node_modules/\n");
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "tree");
  git("status", "--porcelain"); // warm the index and the page cache

  const start: number[] = [];
  const perCommand: number[] = [];
  const status: number[] = [];
  let dirs = 0;
  let w = watchGitState([ws], { budgetMs: 60_000 });
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    w = watchGitState([ws], { budgetMs: 60_000 });
    start.push(performance.now() - t0);
    dirs = w.dirs.size;

    // One bash call: the command writes a file, the check after it.
    const since = Date.now() - 1000;
    writeFileSync(join(ws, "src", "d0", "d0", "d0", "p0", `new-${i}.txt`), "y\n");
    t0 = performance.now();
    const found = gitStateChanges(w, since);
    perCommand.push(performance.now() - t0);
    if (found.length !== 0) throw new Error(`unexpected git state found: ${JSON.stringify(found)}`);

    status.push(git("status", "--porcelain"));
  }
  const s = median(start);
  const c = median(perCommand);
  const g = median(status);
  const result = {
    files,
    directories: dirs,
    runs,
    sessionStartMs: +s.toFixed(1),
    perCommandMs: +c.toFixed(1),
    gitStatusMs: +g.toFixed(1),
    perCommandVsGitStatus: +(c / g).toFixed(2),
    sessionStartVsGitStatus: +(s / g).toFixed(2),
    goals: { perCommandMs: PER_COMMAND_GOAL_MS, sessionStartMs: START_GOAL_MS },
    withinGoals: c <= PER_COMMAND_GOAL_MS && s <= START_GOAL_MS,
  };
  if (json) console.log(JSON.stringify(result));
  else {
    console.log(`planted-git-state detection, ${files} files in ${dirs} directories (node_modules included), median of ${runs}:`);
    console.log(`  first walk (session start) ${s.toFixed(1)} ms   (goal <= ${START_GOAL_MS} ms)   = ${(s / g).toFixed(2)} x git status`);
    console.log(`  added per bash command     ${c.toFixed(1)} ms   (goal <= ${PER_COMMAND_GOAL_MS} ms)    = ${(c / g).toFixed(2)} x git status`);
    console.log(`  git status (reference)     ${g.toFixed(1)} ms`);
    console.log(result.withinGoals ? "within goals" : "OVER GOAL");
  }
} finally {
  rmSync(ws, { recursive: true, force: true });
}
