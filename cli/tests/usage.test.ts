// Usage errors: exit 2 and one line that points at the nearest command, at any depth.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";

const main = join(import.meta.dir, "..", "main.ts");

async function cli(args: string[]) {
  const home = mkdtempSync(join(tmpdir(), "rx-usage-"));
  const p = Bun.spawn([process.execPath, main, ...args], { cwd: home, env: { PATH: process.env.PATH, HOME: home, REASONIX_HOME: home, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  return { err, code };
}

test.each([
  [["doctr"], 'unknown command "doctr"', '"reasonix doctor"'],
  [["remote", "conect", "box"], 'unknown command "remote conect"', '"reasonix remote connect"'],
  [["remote", "fs", "lss", "box:/"], 'unknown command "remote fs lss"', '"reasonix remote fs ls"'],
  [["config", "lst"], 'unknown command "config lst"', '"reasonix config list"'],
  [["doctor", "--frobnicate"], 'unknown option "--frobnicate"', "see --help"],
  // Before any command: an unknown option, not "missing command"; negated flags as typed.
  [["--frobnicate"], 'unknown option "--frobnicate"', "reasonix --help"],
  [["-x", "doctor"], 'unknown option "-x"', "reasonix --help"],
  [["web", "--no-opn"], 'unknown option "--no-opn"', "see --help"],
  // --port N is --addr 127.0.0.1:N: anything else points to --addr.
  [["web", "--port", "80a"], 'invalid --port "80a"', "--addr HOST:PORT"],
  [["web", "--port", "70000"], 'invalid --port "70000"', "--addr HOST:PORT"],
  [["web", "--port", "9000", "--addr", "0.0.0.0:9000"], "--port and --addr both set the listen address", "--addr HOST:PORT"],
  [["setup", "lst"], 'unknown command "setup lst"', '"reasonix setup list"'],
])("%p → exit 2 with a hint", async (args, message, hint) => {
  const r = await cli(args as string[]);
  expect(r.code).toBe(2);
  const lines = r.err.trim().split("\n");
  expect(lines[0]).toBe(`error: ${message}`);
  expect(lines[1]).toContain(hint);
  expect(lines.length).toBe(2);
});
