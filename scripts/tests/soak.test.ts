// `npm run test:soak` (scripts/soak.ts): runs test files N times, optionally
// under K busy processes, and reports each test's pass rate from bun's junit
// report; one failure in one run fails the soak.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { parseJunit, slowestFiles, soakSummary } from "../lib/test-report.ts";

const dir = mkdtempSync(join(tmpdir(), "rx-soak-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const soak = join(import.meta.dir, "..", "soak.ts");

/** `out` is the soak's stdout (the summary last); bun test's own report goes to stderr. */
async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([process.execPath, soak, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

test("parses bun's junit report: nested describes, failures, skips and todos, times, escaped names", async () => {
  const file = join(dir, "shape.test.ts");
  writeFileSync(
    file,
    [
      'import { describe, expect, test } from "bun:test";',
      'describe("outer <&>", () => { describe("inner", () => { test("deep", () => {}); }); test("bad", () => expect(1).toBe(2)); test.skip("sk", () => {}); });',
      'test("slow", async () => { await Bun.sleep(60); });',
      'test.todo("later");',
      "",
    ].join("\n"),
  );
  const out = join(dir, "shape.xml");
  const p = Bun.spawn([process.execPath, "test", "--reporter=junit", `--reporter-outfile=${out}`, file], { cwd: dir, stdout: "ignore", stderr: "ignore" });
  expect(await p.exited).toBe(1);
  const r = parseJunit(readFileSync(out, "utf8"));
  expect(r.files).toHaveLength(1);
  expect(r.files[0]!.file).toEndWith("shape.test.ts");
  expect(r.files[0]!.seconds).toBeGreaterThan(0.05);
  const by = Object.fromEntries(r.cases.map((c) => [c.name, c]));
  expect(Object.keys(by).sort()).toEqual(["later", "outer <&> > bad", "outer <&> > inner > deep", "outer <&> > sk", "slow"]);
  expect(by["outer <&> > bad"]!.outcome).toBe("fail");
  expect(by["outer <&> > inner > deep"]!.outcome).toBe("pass");
  expect(by["outer <&> > sk"]!.outcome).toBe("skip");
  expect(by["later"]!.outcome).toBe("skip");
  expect(by["slow"]!.seconds).toBeGreaterThan(0.05);
});

test("the summary: pass rate and slowest run per test, failing tests first with their runs, the slowest whole run", () => {
  const report = (fail: boolean, secs: number) => ({
    files: [{ file: "a.test.ts", seconds: secs }],
    cases: [
      { file: "a.test.ts", name: "steady", outcome: "pass" as const, seconds: secs / 2 },
      { file: "a.test.ts", name: "flaky", outcome: fail ? ("fail" as const) : ("pass" as const), seconds: 0.1 },
      { file: "a.test.ts", name: "off", outcome: "skip" as const, seconds: 0 },
    ],
  });
  const s = soakSummary([{ index: 1, seconds: 2, exitCode: 0, report: report(false, 1) }, { index: 2, seconds: 5, exitCode: 1, report: report(true, 3) }, { index: 3, seconds: 3, exitCode: 0, report: report(false, 2) }], 2);
  expect(s.failed).toBe(true);
  expect(s.lines).toEqual([
    "soak: 3 runs under --load 2",
    "a.test.ts:",
    "  2/3 passed     slowest   0.10 s  flaky  FAILED in run 2",
    "  3/3 passed     slowest   1.50 s  steady",
    "  skipped        slowest   0.00 s  off",
    "slowest run: #2, 5.00 s (fastest 2.00 s)",
    "soak: FAILED",
  ]);
  // Each file is listed once: the file with a failure first, its failing test first.
  const two = soakSummary([{ index: 1, seconds: 1, exitCode: 1, report: { files: [], cases: [
    { file: "a.test.ts", name: "fine", outcome: "pass", seconds: 0.1 },
    { file: "b.test.ts", name: "fine too", outcome: "pass", seconds: 0.1 },
    { file: "b.test.ts", name: "broken", outcome: "fail", seconds: 0.1 },
  ] } }], 0);
  expect(two.lines.filter((l) => !l.startsWith(" "))).toEqual(["soak: 1 run", "b.test.ts:", "a.test.ts:", "slowest run: #1, 1.00 s (fastest 1.00 s)", "soak: FAILED"]);
  expect(two.lines[2]).toContain("broken");
  // A run that failed without a failing test (a crash, a file that did not load) fails the soak too.
  const crash = soakSummary([{ index: 1, seconds: 1, exitCode: 0, report: report(false, 1) }, { index: 2, seconds: 1, exitCode: 133, report: { files: [], cases: [] } }], 0);
  expect(crash.failed).toBe(true);
  expect(crash.lines).toContain("run 2 exited with code 133 without a failing test in its report (see its output above)");
  expect(soakSummary([{ index: 1, seconds: 1, exitCode: 0, report: report(false, 1) }], 0)).toEqual({ failed: false, lines: expect.arrayContaining(["soak: 1 run", "soak: every test passed in every run"]) });
});

test("the ten slowest files, slowest first", () => {
  const files = Array.from({ length: 12 }, (_, i) => ({ file: `f${i}.test.ts`, seconds: i * 1.5 }));
  const lines = slowestFiles(files);
  expect(lines).toHaveLength(10);
  expect(lines[0]).toBe("    16.5 s  f11.test.ts");
  expect(lines[9]).toBe("    3.00 s  f2.test.ts");
});

test("end to end: a test that fails in one run of three fails the soak (exit 1); the busy processes ran and are gone afterwards", async () => {
  const counter = join(dir, "count");
  const pids = join(dir, "pids");
  writeFileSync(counter, "0");
  const file = join(dir, "flaky.test.ts");
  writeFileSync(
    file,
    [
      'import { expect, test } from "bun:test";',
      'import { readFileSync, writeFileSync, appendFileSync } from "node:fs";',
      'import { spawnSync } from "node:child_process";',
      `const n = Number(readFileSync(${JSON.stringify(counter)}, "utf8")) + 1;`,
      `writeFileSync(${JSON.stringify(counter)}, String(n));`,
      "// The load processes are the soak's children, like this bun test.",
      'const kids = spawnSync("ps", ["-o", "pid=,args=", "--ppid", String(process.ppid)], { encoding: "utf8" }).stdout.split("\\n").filter((l) => l.includes("busy-loop.ts")).map((l) => l.trim().split(" ")[0]);',
      `appendFileSync(${JSON.stringify(pids)}, kids.join("\\n") + "\\n");`,
      'test("steady", () => expect(kids.length).toBe(Number(process.env.LOADS)));',
      'test("fails in run 2", () => expect(n).not.toBe(2));',
      "",
    ].join("\n"),
  );
  const r = await run([file, "--times", "3", "--load", "2"], { LOADS: "2" });
  expect(r.code).toBe(1);
  expect(r.out).toContain("soak: 3 runs under --load 2");
  expect(r.out).toMatch(/2\/3 passed\s+slowest\s+[\d.]+ s {2}fails in run 2 {2}FAILED in run 2\n/);
  expect(r.out).toMatch(/3\/3 passed\s+slowest\s+[\d.]+ s {2}steady\n/);
  expect(r.out).toMatch(/slowest run: #\d, [\d.]+ s/);
  expect(r.out.trimEnd().split("\n").at(-1)).toBe("soak: FAILED");
  const seen = [...new Set(readFileSync(pids, "utf8").split("\n").filter(Boolean))].map(Number);
  expect(seen).toHaveLength(2);
  // Killed when the soak ended (a zombie waiting for its reaper counts as gone).
  const alive = (pid: number) => existsSync(`/proc/${pid}/status`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  await pollFor("the busy processes to end", () => seen.filter(alive), (left) => left.length === 0, { timeoutMs: 5000 });

  writeFileSync(counter, "5");
  const ok = await run([file, "--times=2"], { LOADS: "0" });
  expect(ok.code).toBe(0);
  expect(ok.out).toContain("soak: 2 runs\n");
  expect(ok.out.trimEnd().split("\n").at(-1)).toBe("soak: every test passed in every run");
});

test("bad arguments are refused with the usage", async () => {
  for (const args of [["--times", "3"], ["-t", "steady"], ["no-such.test.ts"]]) {
    const none = await run(args);
    expect(none.code).toBe(2);
    expect(none.err).toContain("name the test files to soak (existing paths)");
  }
  const bad = await run(["--load", "lots"]);
  expect(bad.code).toBe(2);
  expect(bad.err).toContain("--load needs a whole number ≥ 0 (got lots)");
});
