// Shared pieces of the agent benchmarks (scripts/bench/fast.ts, peers.ts):
// one process measured from outside (wall time, CPU, peak RSS), the
// scripted answers of each scenario, a git workspace of N files, medians and
// the machine's load. Each agent runs against a scripted endpoint on
// 127.0.0.1 (core/testing/scripted-llm*.ts) that answers at once.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import type { ScriptStep } from "../../core/testing/scripted-llm.ts";

export interface Measured {
  wallMs: number;
  /** User + system CPU of the process and its children. */
  cpuMs: number;
  /** Peak resident set (MiB) of the largest process (GNU time's %M). */
  rssMiB: number;
  code: number;
  stdout: string;
  stderr: string;
}

const TIME = "/usr/bin/time";
export const hasGnuTime = (): boolean => existsSync(TIME);

/**
 * Runs argv once under GNU time (which forks a small process, so the peak RSS
 * is the program's own, not the benchmark's): wall time measured here.
 */
export async function measure(argv: string[], opts: { cwd: string; env: Record<string, string | undefined>; timeoutMs?: number; stdin?: string }): Promise<Measured> {
  // Outside the workspace: the agent under test must not see it appear.
  const out = join(tmpdir(), `rx-bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const t0 = performance.now();
  const p = Bun.spawn([TIME, "-o", out, "-f", "%U %S %M", ...argv], {
    cwd: opts.cwd,
    env: opts.env,
    stdin: opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const wallMs = performance.now() - t0;
  clearTimeout(timer);
  let cpuMs = NaN;
  let rssMiB = NaN;
  try {
    const last = readFileSync(out, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
    cpuMs = (last[0]! + last[1]!) * 1000;
    rssMiB = last[2]! / 1024;
  } catch {}
  rmSync(out, { force: true });
  return { wallMs, cpuMs, rssMiB, code, stdout, stderr };
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The machine, for the report: CPU model and count, memory, load average now. */
export function machine(): string {
  const c = cpus();
  const load = loadavg().map((x) => x.toFixed(2)).join(" ");
  return `${c.length} × ${c[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ${process.platform}/${process.arch}, load average ${load}`;
}

export const loadNow = (): string => loadavg().map((x) => x.toFixed(2)).join(" ");

/** What the model asks for in each scenario, in the agent's own tool names. */
export interface ToolNames {
  read: { name: string; args: (path: string) => Record<string, unknown> };
  bash: { name: string; args: (command: string) => Record<string, unknown> };
}

/** A plain answer: the one-request run. */
export const answer = (text = "done"): ScriptStep[] => [{ text }];

/** `n` rounds of one tool call each, then the answer. */
export const rounds = (n: number, call: () => { name: string; arguments: Record<string, unknown> }): ScriptStep[] => [
  ...Array.from({ length: n }, (_, i): ScriptStep => ({ text: i === 0 ? "working" : "", toolCalls: [call()] })),
  { text: "done" },
];

/** A streamed answer of about `tokens` tokens (one chunk of ~4 characters each, as a model streams). */
export const longAnswer = (tokens: number): ScriptStep[] => [{ text: "word ".repeat(tokens).trimEnd(), chunkSize: 5 }];

/**
 * A git repository of `files` files (10 per directory, four levels deep),
 * committed, as a workspace the bash rounds run in. Git runs with no user
 * config and hooks off.
 */
export function gitWorkspace(root: string, files: number): void {
  mkdirSync(root, { recursive: true });
  for (let i = 0; i < files; i += 10) {
    const d = Math.floor(i / 10);
    const dir = join(root, `d${d % 10}`, `d${Math.floor(d / 10) % 10}`, `p${Math.floor(d / 100)}`);
    mkdirSync(dir, { recursive: true });
    for (let j = 0; j < 10 && i + j < files; j++) writeFileSync(join(dir, `f${j}.ts`), `export const v${i + j} = ${i + j};\n`);
  }
  writeFileSync(join(root, "README.md"), "bench workspace\n");
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
  for (const args of [["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bench"]]) {
    const r = spawnSync("git", ["-c", "core.hooksPath=/dev/null", ...args], { cwd: root, env });
    if (r.status !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr}`);
  }
}

/** Right-aligned figure with a unit. */
export const fmt = (x: number, unit: string, digits = 0): string => (Number.isFinite(x) ? `${x.toFixed(digits)} ${unit}` : "—");
