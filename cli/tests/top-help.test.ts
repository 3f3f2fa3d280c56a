// `reasonix --help` is laid out without yargs (cli/top-help.ts) to start fast;
// it must print exactly what yargs prints for the same app, byte for byte.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "top-help-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Output of `bun [file] args` with stdout pretending to be `width` columns wide. */
async function printed(width: number, cmd: string[]): Promise<string> {
  const preload = join(dir, `cols-${width}.ts`);
  writeFileSync(preload, `Object.defineProperty(process.stdout, "columns", { value: ${width} });\n`);
  const p = Bun.spawn([process.execPath, "--preload", preload, ...cmd], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [out, err, rc] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(err).toBe("");
  expect(rc).toBe(0);
  return out;
}

const yargsPage = (width: number) => printed(width, ["-e", 'const { runCli } = await import("./cli/app.ts"); process.exitCode = await runCli(["--help"]);']);

for (const width of [100, 80]) {
  test(`top-level --help at ${width} columns is the page yargs prints`, async () => {
    const fromYargs = await yargsPage(width);
    expect(fromYargs).toContain("reasonix completion");
    expect(await printed(width, ["cli/main.ts", "--help"])).toBe(fromYargs);
    expect(await printed(width, ["cli/main.ts", "-h"])).toBe(fromYargs);
  });
}

test("under 80 columns the page comes from yargs itself", async () => {
  expect(await printed(60, ["cli/main.ts", "--help"])).toBe(await yargsPage(60));
});
