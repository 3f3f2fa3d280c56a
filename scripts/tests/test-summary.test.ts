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
