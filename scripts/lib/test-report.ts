// Reads `bun test --reporter=junit` files and turns them into the reports of
// `npm test` (the slowest files) and `npm run test:soak` (each test's pass
// rate over N runs, its slowest run, and the slowest whole run).

export type Outcome = "pass" | "fail" | "skip";

export interface CaseResult {
  file: string;
  /** "describe > nested describe > test". */
  name: string;
  outcome: Outcome;
  seconds: number;
}

export interface FileResult {
  file: string;
  seconds: number;
}

export interface JunitReport {
  files: FileResult[];
  cases: CaseResult[];
}

const unescape = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp|#(\d+)|#x([0-9a-f]+));/gi, (_, name: string, dec?: string, hex?: string) =>
    dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" } as Record<string, string>)[name.toLowerCase()]!,
  );

function attrs(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:-]+)="([^"]*)"/g)) out[m[1]!] = unescape(m[2]!);
  return out;
}

/** Parse one junit file as bun writes it: a testsuite per file, nested testsuites per describe, testcases with <failure>/<error>/<skipped>. */
export function parseJunit(xml: string): JunitReport {
  const files: FileResult[] = [];
  const cases: CaseResult[] = [];
  const suites: string[] = [];
  let file = "";
  let open: CaseResult | undefined;
  for (const m of xml.matchAll(/<(\/?)(testsuites|testsuite|testcase|failure|error|skipped)\b([^>]*?)(\/?)>/g)) {
    const [, closing, tag, rest, selfClosing] = m as unknown as [string, string, string, string, string];
    if (tag === "testsuite") {
      if (closing) {
        suites.pop();
        continue;
      }
      const a = attrs(rest);
      if (suites.length === 0) {
        file = a.file ?? a.name ?? "";
        files.push({ file, seconds: Number(a.time ?? 0) });
        suites.push("");
      } else suites.push(a.name ?? "");
      if (selfClosing) suites.pop();
    } else if (tag === "testcase") {
      if (closing) {
        open = undefined;
        continue;
      }
      const a = attrs(rest);
      const name = [...suites.filter((s) => s !== ""), a.name ?? ""].join(" > ");
      const c: CaseResult = { file: a.file ?? file, name, outcome: "pass", seconds: Number(a.time ?? 0) };
      cases.push(c);
      open = selfClosing ? undefined : c;
    } else if (open && !closing && (tag === "failure" || tag === "error")) open.outcome = "fail";
    else if (open && !closing && tag === "skipped") open.outcome = "skip";
  }
  return { files, cases };
}

const secs = (s: number) => `${s.toFixed(s < 10 ? 2 : 1)} s`;

/** The `n` slowest files, slowest first, as lines for the end of `npm test`. */
export function slowestFiles(files: FileResult[], n = 10): string[] {
  return [...files]
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, n)
    .map((f) => `  ${secs(f.seconds).padStart(8)}  ${f.file}`);
}

export interface SoakRun {
  /** 1-based. */
  index: number;
  /** Wall-clock seconds of the whole `bun test` run. */
  seconds: number;
  exitCode: number;
  report: JunitReport;
}

export interface SoakSummary {
  lines: string[];
  /** Some test failed in some run, or a run failed without naming a test (crash, load error). */
  failed: boolean;
}

/** Each test's pass rate over the runs and its slowest run; the slowest whole run; failing tests first. */
export function soakSummary(runs: SoakRun[], load: number): SoakSummary {
  const byTest = new Map<string, { file: string; name: string; pass: number; fail: number; skip: number; slowest: number; failedIn: number[] }>();
  for (const run of runs) {
    for (const c of run.report.cases) {
      const key = `${c.file}\u0000${c.name}`;
      const t = byTest.get(key) ?? { file: c.file, name: c.name, pass: 0, fail: 0, skip: 0, slowest: 0, failedIn: [] };
      t[c.outcome]++;
      if (c.outcome === "fail") t.failedIn.push(run.index);
      t.slowest = Math.max(t.slowest, c.seconds);
      byTest.set(key, t);
    }
  }
  // Files with a failure first, then by name; within a file, failing tests first (the sort is stable).
  const fileFails = new Map<string, number>();
  for (const t of byTest.values()) fileFails.set(t.file, (fileFails.get(t.file) ?? 0) + t.fail);
  const tests = [...byTest.values()].sort((a, b) => fileFails.get(b.file)! - fileFails.get(a.file)! || a.file.localeCompare(b.file) || b.fail - a.fail);
  const lines: string[] = [`soak: ${runs.length} run${runs.length === 1 ? "" : "s"}${load > 0 ? ` under --load ${load}` : ""}`];
  let file = "";
  for (const t of tests) {
    if (t.file !== file) lines.push(`${(file = t.file)}:`);
    const ran = t.pass + t.fail;
    const rate = ran === 0 ? "skipped" : `${t.pass}/${ran} passed`;
    const extra = t.fail > 0 ? `  FAILED in run ${t.failedIn.join(", ")}` : "";
    lines.push(`  ${rate.padEnd(14)} slowest ${secs(t.slowest).padStart(8)}  ${t.name}${extra}`);
  }
  // A run that exited non-zero without a failing test in its report (a crash, a file that did not load) is a failure too.
  const silent = runs.filter((r) => r.exitCode !== 0 && !r.report.cases.some((c) => c.outcome === "fail"));
  for (const r of silent) lines.push(`run ${r.index} exited with code ${r.exitCode} without a failing test in its report (see its output above)`);
  const slowest = [...runs].sort((a, b) => b.seconds - a.seconds)[0];
  if (slowest) lines.push(`slowest run: #${slowest.index}, ${secs(slowest.seconds)} (fastest ${secs(Math.min(...runs.map((r) => r.seconds)))})`);
  const failed = tests.some((t) => t.fail > 0) || silent.length > 0 || runs.length === 0;
  lines.push(failed ? "soak: FAILED" : `soak: every test passed in every run`);
  return { lines, failed };
}
