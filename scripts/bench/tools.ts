// Tools benchmark: code_index over a generated 5,000-file TypeScript tree, and
// what its grammars add to the binary.
//   npm run bench -- tools [--files N] [--runs N] [--no-size] [--json]
//
// References measured in the same run, on the same tree:
//   - walk+read: the shared walker (ignore files, policy) reading every file,
//     the least any index of the tree must do when cold;
//   - ripgrep: `rg -w NAME` over the tree, what the agent would run without
//     an index to find a declaration.
// Figures (goals from issue 20):
//   - cold outline of the whole tree (fresh process, grammars loaded in the
//     timing, no cache): <= 5 s;  ratio to walk+read reported; the same with
//     one parsing worker per core (REASONIX_CODE_INDEX_WORKERS) beside it;
//   - warm outline (same process, nothing changed): <= 200 ms;
//   - symbols query on the warm index: <= 50 ms; ratio to ripgrep reported;
//   - binary size: the release binary minus a bare Bun hello-world compiled
//     with the same flags <= 10 MiB, and what the grammars cost (the same
//     binary built without them).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { policyFor } from "../../core/tools/builtin/common.ts";
import type { ToolContext } from "../../core/tools/types.ts";
import { walkFiles } from "../../core/tools/walk.ts";

const args = process.argv.slice(2);
const opt = (name: string, def: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : def);

function ctxFor(ws: string, tmpDir: string): ToolContext {
  return {
    workspace: ws, sessionId: "bench", tmpDir, signal: new AbortController().signal,
    beforeWrite: async () => {}, readStamps: new Map(), config: { sandbox: {} }, extraWriteRoots: [],
  };
}

async function outline(ctx: ToolContext, input: Record<string, unknown>): Promise<string> {
  const { codeIndexTool } = await import("../../core/tools/builtin/code-index.ts");
  const r = await codeIndexTool.run(input as never, ctx);
  if (!r.ok) throw new Error(`code_index failed: ${r.output}`);
  return r.output;
}

// Child mode: one cold outline in a fresh process (grammars not yet loaded, no cache).
if (args[0] === "--child-cold") {
  const [ws, tmp] = [args[1]!, args[2]!];
  const ctx = ctxFor(ws, tmp);
  await import("../../core/tools/builtin/code-index.ts"); // module load (and, from source, the grammar macro) outside the timing
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const out = await outline(ctx, { action: "outline", path: "." });
  const c = process.cpuUsage(c0);
  console.log(JSON.stringify({ ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, summary: out.split("\n").at(-1) }));
  process.exit(0);
}

const FILES = opt("--files", 5000);
const RUNS = opt("--runs", 3);
const json = args.includes("--json");

/** One generated module: imports, an interface, a type, a class with methods, functions and constants (~70 lines). */
function moduleSource(i: number): string {
  const n = `M${i}`;
  return `import { helper${(i + 1) % FILES} } from "../d${Math.floor(((i + 1) % FILES) / 100)}/m${(i + 1) % FILES}";

export interface ${n}Options {
  name: string;
  retries?: number;
  onEvent(e: ${n}Event): void;
}

export type ${n}Event = { kind: "start" | "stop"; at: number };

export enum ${n}State { Idle, Running, Done }

export class ${n}Service {
  private state = ${n}State.Idle;
  private readonly log: string[] = [];

  constructor(private readonly opts: ${n}Options) {}

  async start(): Promise<void> {
    this.state = ${n}State.Running;
    this.opts.onEvent({ kind: "start", at: Date.now() });
    for (let k = 0; k < (this.opts.retries ?? 1); k++) {
      if (await this.attempt(k)) break;
    }
  }

  private async attempt(k: number): Promise<boolean> {
    this.log.push(\`attempt \${k}\`);
    return k % 2 === 0;
  }

  stop(): void {
    this.state = ${n}State.Done;
    this.opts.onEvent({ kind: "stop", at: Date.now() });
  }

  get history(): readonly string[] {
    return this.log;
  }
}

export function create${n}(name: string): ${n}Service {
  return new ${n}Service({ name, onEvent: () => {} });
}

export function helper${i}(x: number): number {
  const doubled = x * 2;
  return helper${(i + 1) % FILES}.length + doubled;
}

export const ${n.toUpperCase()}_LIMIT = ${i};

export const format${n} = (s: ${n}Service) => s.history.join(", ");

function internal${n}(values: number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

export default internal${n};
`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: { name: string; value: string; goal: string; ok: boolean | null }[] = [];
const row = (name: string, value: string, goal: string, ok: boolean | null) => {
  rows.push({ name, value, goal, ok });
  if (!json) console.log(`${name.padEnd(46)} ${value.padStart(12)}   ${goal ? `goal ${goal.padEnd(12)}` : "".padEnd(17)} ${ok === null ? "" : ok ? "ok" : "MISSED"}`);
};

const work = mkdtempSync(join(tmpdir(), "rx-bench-tools-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const ws = join(work, "ws");
for (let i = 0; i < FILES; i++) {
  const dir = join(ws, "src", `d${Math.floor(i / 100)}`);
  if (i % 100 === 0) mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `m${i}.ts`), moduleSource(i));
}
if (!json) console.log(`tools benchmark: code_index over ${FILES} generated TypeScript files (~70 lines each)`);

// ---- reference: walk + read every file ----
const policy = policyFor(ctxFor(ws, join(work, "ref-tmp")));
const walkRead: number[] = [];
for (let r = 0; r < RUNS + 1; r++) {
  const t0 = performance.now();
  let bytes = 0;
  for (const f of walkFiles(ws, { hidden: false, gitignore: true, policy })) bytes += readFileSync(f.abs).length;
  if (r > 0) walkRead.push(performance.now() - t0); // the first run warms the page cache
  if (bytes === 0) throw new Error("empty tree");
}
const refWalk = median(walkRead);

// ---- cold outline: fresh process each time (in-process parsing, the default; and with parsing workers) ----
function coldRuns(workers: number): { wall: number[]; cpu: number[]; summary: string } {
  const out = { wall: [] as number[], cpu: [] as number[], summary: "" };
  for (let r = 0; r < RUNS; r++) {
    const env = { ...process.env, REASONIX_CODE_INDEX_WORKERS: String(workers) };
    const p = Bun.spawnSync([process.execPath, import.meta.path, "--child-cold", ws, join(work, `cold-tmp-${workers}-${r}`)], { stdout: "pipe", stderr: "pipe", env });
    if (p.exitCode !== 0) throw new Error(`cold run failed: ${p.stderr.toString()}`);
    const res = JSON.parse(p.stdout.toString().trim().split("\n").at(-1)!) as { ms: number; cpuMs: number; summary: string };
    out.wall.push(res.ms);
    out.cpu.push(res.cpuMs);
    out.summary = res.summary;
  }
  return out;
}
const coldRun = coldRuns(0);
const { wall: cold, cpu: coldCpu, summary: coldSummary } = coldRun;
const coldWorkers = coldRuns(navigator.hardwareConcurrency);

// ---- warm outline and symbols: this process, after one indexing ----
const ctx = ctxFor(ws, join(work, "warm-tmp"));
await outline(ctx, { action: "outline", path: "." });
/** Wall and CPU time of one call (CPU: this process, all threads; the machine is shared, so both are reported). */
async function timed(input: Record<string, unknown>, wall: number[], cpu: number[]): Promise<string> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const out = await outline(ctx, input);
  const c = process.cpuUsage(c0);
  wall.push(performance.now() - t0);
  cpu.push((c.user + c.system) / 1000);
  return out;
}
const warm: number[] = [];
const warmCpu: number[] = [];
for (let r = 0; r < 10; r++) await timed({ action: "outline", path: "." }, warm, warmCpu);
const queries = ["M4321Service", "helper17", "Service.sta", "format", "m123opt", "LIMIT"];
const sym: number[] = [];
const symCpu: number[] = [];
for (let r = 0; r < 5; r++) {
  for (const q of queries) {
    const out = await timed({ action: "symbols", query: q }, sym, symCpu);
    if (out.startsWith("no symbols")) throw new Error(`symbols ${q} found nothing`);
  }
}
const def: number[] = [];
const defCpu: number[] = [];
for (let r = 0; r < 10; r++) await timed({ action: "definition", query: `M${(r * 397) % FILES}Service.start` }, def, defCpu);
// ripgrep for the same names: what finding a declaration costs without an index.
const rg = Bun.which("rg");
const rgMs: number[] = [];
if (rg) {
  for (let r = 0; r < 5; r++) {
    for (const q of ["M4321Service", "helper17"]) {
      const t0 = performance.now();
      Bun.spawnSync([rg, "--no-config", "-n", "-w", q, "."], { cwd: ws, stdout: "pipe" });
      rgMs.push(performance.now() - t0);
    }
  }
}

const ms = (x: number) => `${x.toFixed(x < 100 ? 1 : 0)} ms`;
if (!json) console.log(`index: ${coldSummary}; load average ${(await import("node:os")).loadavg().map((x) => x.toFixed(1)).join(" ")} on ${navigator.hardwareConcurrency} cores`);
row("reference: walk + read all files", ms(refWalk), "", null);
if (rg) row("reference: rg -w NAME over the tree", ms(median(rgMs)), "", null);
row("cold outline (fresh process, median)", ms(median(cold)), "<= 5000 ms", median(cold) <= 5000);
row("  cold outline CPU time (median)", ms(median(coldCpu)), "", null);
row("  cold outline / walk+read", `${(median(cold) / refWalk).toFixed(1)}x`, "", null);
row(`  cold with ${navigator.hardwareConcurrency} parsing workers (opt-in)`, ms(median(coldWorkers.wall)), "", null);
row("    its CPU time", ms(median(coldWorkers.cpu)), "", null);
row("warm outline (median of 10)", ms(median(warm)), "<= 200 ms", median(warm) <= 200);
row("  warm outline CPU time", ms(median(warmCpu)), "", null);
row("  warm outline / walk+read", `${(median(warm) / refWalk).toFixed(2)}x`, "", null);
row("symbols query (median of 30)", ms(median(sym)), "<= 50 ms", median(sym) <= 50);
row("  symbols query CPU time", ms(median(symCpu)), "", null);
if (rg) row("  symbols / rg -w", `${(median(sym) / median(rgMs)).toFixed(2)}x`, "", null);
row("definition with context (median of 10)", ms(median(def)), "", null);
row("  definition CPU time", ms(median(defCpu)), "", null);

// ---- binary size ----
if (!args.includes("--no-size")) {
  const { builtDist } = await import("../lib/built-dist.ts");
  const { compileTarget, hostTarget } = await import("../build.ts");
  const { grammarPack } = await import("../lib/grammar-pack.ts");
  const { GRAMMAR_FILES, wasmDir } = await import("../../core/code-index/pack.ts");
  const { binary } = await builtDist();
  // The same binary with the grammar module replaced by an empty one.
  const without = await compileTarget(hostTarget(), join(work, "no-grammars"), undefined, { grammars: false });
  const rawBytes = GRAMMAR_FILES.reduce((n, f) => n + statSync(join(wasmDir(), `${f}.wasm`)).size, 0);
  const packedBytes = statSync(grammarPack()).size;
  writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
  const hello = join(work, "hello");
  const r = await Bun.build({
    entrypoints: [join(work, "hello.ts")],
    compile: { outfile: hello, autoloadDotenv: false, autoloadBunfig: false },
    splitting: true, bytecode: true, format: "esm", minify: true,
  });
  if (!r.success) throw new Error("hello-world build failed");
  const MiB = 1024 * 1024;
  const size = (p: string) => statSync(p).size;
  const cost = (size(binary) - size(without)) / MiB;
  const overall = (size(binary) - size(hello)) / MiB;
  row("grammars: raw .wasm (6 files)", `${(rawBytes / MiB).toFixed(2)} MiB`, "", null);
  row("grammars: embedded (zstd)", `${(packedBytes / MiB).toFixed(2)} MiB`, "", null);
  row("binary with grammars − without", `${cost.toFixed(2)} MiB`, "", null);
  row("binary − bare Bun hello-world", `${overall.toFixed(2)} MiB`, "<= 10 MiB", overall <= 10);
}

if (json) console.log(JSON.stringify({ files: FILES, rows }, null, 2));
