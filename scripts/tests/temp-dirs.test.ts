// A test run removes the temporary builds it made: `bun test` fires no "exit"
// event, so the whole-run afterAll of the preload (bunfig.toml) does it. A
// leaked compiled build is 168 MiB; a few hundred filled the disk.
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

setDefaultTimeout(60_000);
const root = join(import.meta.dir, "..", "..");

test("a bun test process that wrote the grammar pack leaves no temporary directory behind", async () => {
  // Writing the pack takes seconds under load: bun's 5 s default per test is too tight.
  const p = Bun.spawn([process.execPath, "test", "--timeout=50000", "./scripts/tests/fixtures/grammar-pack-run.ts"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect({ code, output: code === 0 ? "" : out + err }).toEqual({ code: 0, output: "" });
  const pack = /^PACK (.+)$/m.exec(out + err)?.[1];
  expect(pack).toBeDefined();
  expect(existsSync(dirname(pack!))).toBe(false);
});
