// `npm test` (scripts/test.ts) ends with one line that counts skipped tests
// and repeats why they skipped, so a suite that could not run its subject is
// never mistaken for a pass.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "rx-test-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the closing line counts skips (a missing login shell) and the reasons are listed", async () => {
  const file = join(dir, "fixture.test.ts");
  writeFileSync(
    file,
    [
      'import { describe, expect, test } from "bun:test";',
      'console.warn("SKIPPED demo (login shell: tcsh): tcsh is not installed");',
      'describe.skipIf(true)("demo (login shell: tcsh)", () => { test("a", () => {}); test("b", () => {}); });',
      'test("runs", () => expect(1).toBe(1));',
      "",
    ].join("\n"),
  );
  const p = Bun.spawn([process.execPath, join(import.meta.dir, "..", "test.ts"), file], { stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  expect(code).toBe(0);
  expect(out).toContain("skip reasons:\n  SKIPPED demo (login shell: tcsh): tcsh is not installed\n");
  expect(out.trimEnd().split("\n").at(-1)).toBe("tests: 1 passed, 0 failed, 2 skipped");
});

test("the ten slowest files are listed, slowest first, above the closing line (which stays last)", async () => {
  // Which file is slowest is the machine's business (scripts/tests/soak.test.ts checks the ranking itself):
  // here, eleven files give a list of ten distinct ones, in non-increasing time.
  const files = Array.from({ length: 11 }, (_, i) => {
    const file = join(dir, `slow${String(i).padStart(2, "0")}.test.ts`);
    writeFileSync(file, ['import { test } from "bun:test";', `test("t${i}", async () => { await Bun.sleep(${i * 20}); });`, ""].join("\n"));
    return file;
  });
  const p = Bun.spawn([process.execPath, join(import.meta.dir, "..", "test.ts"), ...files], { stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  expect(code).toBe(0);
  const lines = out.trimEnd().split("\n");
  expect(lines.at(-1)).toBe("tests: 11 passed, 0 failed, 0 skipped");
  const at = lines.indexOf("slowest test files:");
  expect(at).toBeGreaterThan(-1);
  const listed = lines.slice(at + 1, at + 11).map((l) => /^\s+([\d.]+) s {2}(\S+)$/.exec(l));
  expect(listed.every((m) => m !== null && files.includes(m[2]!))).toBe(true);
  expect(new Set(listed.map((m) => m![2])).size).toBe(10);
  const secs = listed.map((m) => Number(m![1]));
  expect(secs).toEqual([...secs].sort((a, b) => b - a));
  expect(lines[at + 11]).toBe("");
});
