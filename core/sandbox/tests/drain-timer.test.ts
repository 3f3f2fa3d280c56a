// After a command exits, runShell waits a grace period for its pipes to drain
// (an unconfined background child may hold them). That wait must end with
// the drain: a timer left running kept the whole process alive for its full
// length after the last command (a one-shot `reasonix run` with a bash round
// exited 250 ms late). Here the grace is ten minutes, so a process that stays
// alive for it cannot pass within the test's time limit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeSandbox } from "../index.ts";

const sandbox = await probeSandbox();
if (!sandbox.available) console.log(`SKIPPED the sandboxed case: ${sandbox.cause}`);
const index = join(import.meta.dir, "..", "index.ts");
const policyModule = join(import.meta.dir, "..", "..", "policy", "paths.ts");
let base: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "rx-drain-")));
  for (const d of ["ws", "rxhome"]) mkdirSync(join(base, d));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function runAndExit(mode: "off" | "enforce") {
  const script = `
    import { createSessionTmpDir, removeSessionTmpDir, runShell } from ${JSON.stringify(index)};
    import { createPathPolicy } from ${JSON.stringify(policyModule)};
    const ws = ${JSON.stringify(join(base, "ws"))};
    const policy = createPathPolicy({ cwd: ws, reasonixHome: ${JSON.stringify(join(base, "rxhome"))} });
    const sessionTmpDir = createSessionTmpDir();
    const res = await runShell("echo ran", { policy, mode: ${JSON.stringify(mode)}, network: false, sessionTmpDir, cwd: ws, timeoutMs: 20_000, drainGraceMs: 600_000, env: { PATH: process.env.PATH } });
    removeSessionTmpDir(sessionTmpDir);
    console.log(res.ok ? res.output.trim() + " " + res.exitCode : "refused " + res.refusal.message);
  `;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const code = await proc.exited;
  return { code, out: (await new Response(proc.stdout).text()).trim(), err: await new Response(proc.stderr).text() };
}

describe("runShell's drain grace", () => {
  test("an unconfined command: the process exits as soon as the command's output is in", async () => {
    const r = await runAndExit("off");
    expect(r.err).toBe("");
    expect(r.out).toBe("ran 0");
    expect(r.code).toBe(0);
  }, 60_000);

  test.skipIf(!sandbox.available)("a sandboxed command: the same", async () => {
    const r = await runAndExit("enforce");
    expect(r.err).toBe("");
    expect(r.out).toBe("ran 0");
    expect(r.code).toBe(0);
  }, 60_000);
});
