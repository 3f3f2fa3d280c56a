// Background jobs through the real CLI (`reasonix run`, scripted model): a job
// the run started is gone when the run ends, and when the run is killed (-9)
// under the sandbox.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../core/sandbox/index.ts";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { processesMentioning } from "../../core/testing/processes.ts";

const commOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
};
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { mainTs, makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

setDefaultTimeout(120_000);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const status = await probeSandbox();
if (!status.available) console.warn(`SKIPPED reasonix run background jobs under bwrap: the OS sandbox is unavailable (${status.cause})`);

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0], sandbox: "off" | "enforce"): Promise<CliEnv> {
  const llm = await startScriptedOpenAI(steps);
  const ce = makeCliEnv(llm.url);
  const cfg = join(ce.home, "config.toml");
  writeFileSync(cfg, readFileSync(cfg, "utf8").replace('bash = "off"', `bash = "${sandbox}"`));
  cleanups.push(() => llm.close(), () => ce.cleanup());
  return ce;
}

const startJob = (marker: string) => ({ toolCalls: [{ name: "bash", arguments: { command: `echo up; while true; do sleep 0.2; done # ${marker}`, run_in_background: true } }] });

describe("reasonix run with a background job", () => {
  for (const sandbox of ["off", "enforce"] as const) {
    const run = sandbox === "enforce" && !status.available ? test.skip : test;
    run(`the job ends with the run (sandbox.bash = "${sandbox}")`, async () => {
      const marker = `run-marker-${process.pid}-${sandbox}-${Date.now()}`;
      const ce = await setup([startJob(marker), { text: "Started the watcher." }], sandbox);
      const r = await runCli(ce, ["run", "--permission-mode", "yolo", "--output-format", "stream-json", "start", "a", "watcher"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("started background job job-1");
      await pollFor("no process of the job left after the run", () => processesMentioning(marker), (ps) => ps.length === 0, { timeoutMs: 10_000 });
    });
  }

  (status.available ? test : test.skip)("a run killed with SIGKILL mid-turn leaves no sandboxed job behind", async () => {
    const marker = `kill9-marker-${process.pid}-${Date.now()}`;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    cleanups.push(() => release());
    const ce = await setup([startJob(marker), { text: "never sent", until: held }], "enforce");
    const proc = Bun.spawn([process.execPath, mainTs, "run", "--permission-mode", "yolo", "start", "a", "watcher"], { cwd: ce.workspace, env: ce.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    cleanups.push(() => proc.kill("SIGKILL"));
    // The job's own shell appears because the run started it (none mention the marker before). Not bwrap's
    // argv alone: until bwrap has set itself to die with its parent, a kill -9 would orphan it by design of
    // the kernel, not of ours; the shell inside runs only after that setup.
    const shells = () => processesMentioning(marker).filter((pid) => commOf(pid) === "bash");
    await pollFor("the job's shell running", shells, (ps) => ps.length > 0, { timeoutMs: 60_000 });
    proc.kill("SIGKILL");
    await proc.exited;
    await pollFor("no process of the job left after kill -9", () => processesMentioning(marker), (ps) => ps.length === 0, { timeoutMs: 10_000 });
  });
});
