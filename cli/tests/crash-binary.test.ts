// Crash reports from the compiled release binary: a real unexpected error
// (ENOTDIR from a sessions "directory" that is a file) leaves one scrubbed
// 0600 report carrying the build stamp, and the test-only crash switch does
// nothing in a stamped build (nor does the telemetry test override).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtDist, type BuiltDist } from "../../scripts/lib/built-dist.ts";

let dist: BuiltDist;
beforeAll(async () => {
  dist = await builtDist();
}, 240_000);
const roots: string[] = [];
afterAll(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });

async function exec(args: string[], env: Record<string, string> = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-crash-bin-")));
  roots.push(root);
  const rx = join(root, ".reasonix");
  mkdirSync(rx);
  writeFileSync(join(rx, "sessions"), "not a directory\n");
  const p = Bun.spawn([dist.binary, ...args], { cwd: root, env: { PATH: "/usr/bin:/bin", HOME: root, REASONIX_HOME: rx, NO_COLOR: "1", ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const dir = join(rx, "crash-reports");
  const files = existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : [];
  return { root, out, err, code, files };
}

test("a real crash in the binary leaves a scrubbed 0600 report with the build stamp", async () => {
  const r = await exec(["sessions", "list"]);
  expect(r.code).toBe(1);
  expect(r.err).toContain("ENOTDIR");
  expect(r.files).toHaveLength(1);
  expect(r.err).toContain(`A crash report was saved to ${r.files[0]}`);
  expect(statSync(r.files[0]!).mode & 0o777).toBe(0o600);
  const text = readFileSync(r.files[0]!, "utf8");
  expect(text).not.toContain(r.root);
  const report = JSON.parse(text);
  expect(report.commit).not.toBe("dev");
  expect(report.frontEnd).toBe("cli");
  expect(report.message).toContain("~/.reasonix/sessions");
  // Minified code: a frame in the bundle keeps its line and column (docs/crash-reports.md).
  expect(report.stack.some((f: string) => /^at .+ \(<bundle>\/[^/\s]+:\d+:\d+\)$/.test(f))).toBe(true);
});

test("REASONIX_TEST_CRASH is inert in the release binary", async () => {
  const r = await exec(["run", "hello"], { REASONIX_TEST_CRASH: "run", REASONIX_TEST_CRASH_MESSAGE: "planted" });
  expect(r.err).not.toContain("test crash");
  expect(r.err).toContain("no model provider is configured");
  expect(r.files).toEqual([]);
});

test("usage counters in the release binary: not a development build, REASONIX_TEST_TELEMETRY changes nothing, CI still wins", async () => {
  const json = async (env: Record<string, string>) => JSON.parse((await exec(["config", "telemetry", "--json"], env)).out);
  const plain = await json({});
  expect(plain.chat.reason).toBe("off until the one-time choice is saved");
  expect(await json({ REASONIX_TEST_TELEMETRY: "0" })).toEqual(plain);
  expect(await json({ REASONIX_TEST_TELEMETRY: "1" })).toEqual(plain);
  expect((await json({ CI: "1" })).chat.reason).toBe("off: CI is set");
});
