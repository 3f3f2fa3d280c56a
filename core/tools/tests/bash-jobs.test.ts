// Background shell jobs under the real sandbox (bwrap): bash run_in_background,
// bash_output, bash_kill, the output cap, and no process left behind.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../sandbox/index.ts";
import { pollFor } from "../../testing/fresh-wait.ts";
import { processesMentioning } from "../../testing/processes.ts";
import { bashTool } from "../builtin/bash.ts";
import { bashKillTool, bashOutputTool } from "../builtin/bash-jobs.ts";
import { JobTable } from "../jobs.ts";
import { readOnlyBash } from "../readonly.ts";
import { fixture, type Fixture } from "./helpers.ts";

let fx: Fixture;
let table: JobTable | undefined;
afterEach(async () => {
  await table?.closeAll();
  table = undefined;
  fx?.cleanup();
});

// Waits are bounded by their own timeouts (a loaded machine: 2 cores shared by many suites).
setDefaultTimeout(120_000);

const status = await probeSandbox();
if (!status.available) console.warn(`SKIPPED background jobs under bwrap: the OS sandbox is unavailable (${status.cause})`);
const enforced = status.available ? test : test.skip;
const PYTHON = "/usr/bin/python3";
const havePython = existsSync(PYTHON);
if (!havePython) console.warn(`SKIPPED the http.server job: no ${PYTHON}`);

function withJobs(opts: ConstructorParameters<typeof JobTable>[1] = {}): Fixture {
  fx = fixture({ sandbox: { bash: "enforce" } });
  table = new JobTable(join(fx.home, "sessions", "s", "jobs"), opts);
  fx.ctx.jobs = table;
  return fx;
}

const jobIdOf = (output: string): string => /started background job (job-\d+)/.exec(output)?.[1] ?? "";

/** bash_output until its text (accumulated over reads) passes `ok`; every read is new output, so the wait is caused by the job. */
async function readUntil(id: string, ok: (all: string) => boolean, filter?: string): Promise<string> {
  let all = "";
  await pollFor(`output of ${id}`, async () => {
    const r = await fx.run(bashOutputTool, { job_id: id, ...(filter ? { filter } : {}) });
    all += `${r.output}\n`;
    return all;
  }, ok, { timeoutMs: 60_000, everyMs: 100 });
  return all;
}

describe("background jobs under bwrap", () => {
  enforced("a python http.server starts at once, is polled, killed, and gone", async () => {
    if (!havePython) return;
    withJobs();
    const started = await fx.run(bashTool, { command: `${PYTHON} -u -m http.server 0 --bind 127.0.0.1 --directory ${fx.ws} 2>&1`, run_in_background: true });
    expect(started.ok).toBe(true);
    const id = jobIdOf(started.output);
    expect(id).toBe("job-1");
    // The line the server prints after it started listening.
    const seen = await readUntil(id, (all) => /Serving HTTP on 127\.0\.0\.1 port \d+/.test(all));
    expect(seen).toContain(`[${id} running after`);
    const pid = table!.get(id)!.pid;
    expect(processesMentioning(fx.ws).length).toBeGreaterThan(0);
    const killed = await fx.run(bashKillTool, { job_id: id });
    expect(killed.output).toContain(`stopped ${id}: [${id} killed`);
    expect(table!.get(id)!.status).toBe("killed");
    expect(() => process.kill(pid, 0)).toThrow();
    await pollFor("no process of the job left", () => processesMentioning(fx.ws), (ps) => ps.length === 0, { timeoutMs: 10_000 });
    const after = await fx.run(bashOutputTool, { job_id: id });
    expect(after.output).toMatch(new RegExp(`\\[${id} killed`));
  });

  enforced("a loop's new output comes in pieces, filtered when asked; a finished job reports its exit code", async () => {
    withJobs();
    const r = await fx.run(bashTool, { command: "for i in 1 2 3 4 5; do echo tick-$i; echo other-$i; sleep 0.1; done; echo done-ticking; exit 7", run_in_background: true });
    const id = jobIdOf(r.output);
    const all = await readUntil(id, (s) => s.includes("exited 7"), "^tick-|done");
    expect(all).toContain("tick-1");
    expect(all).toContain("tick-5");
    expect(all).toContain("done-ticking");
    expect(all).not.toContain("other-");
    // Each line was handed out once.
    expect(all.match(/tick-3/g)?.length).toBe(1);
    const again = await fx.run(bashOutputTool, { job_id: id });
    expect(again.output).toStartWith("(no new output)");
    expect(again.output).toContain(`[${id} exited 7 after`);
  });

  enforced("the job runs in the same sandbox as foreground bash: writes outside the write roots fail", async () => {
    withJobs();
    const r = await fx.run(bashTool, { command: `echo in > inside.txt; echo out > ${fx.outside}/out.txt; echo finished`, run_in_background: true });
    const id = jobIdOf(r.output);
    await readUntil(id, (s) => s.includes("exited"));
    expect(fx.read("inside.txt")).toBe("in\n");
    expect(existsSync(join(fx.outside, "out.txt"))).toBe(false);
  });

  enforced("output beyond the cap is not kept on disk, and the reader is told", async () => {
    withJobs({ capBytes: 4096 });
    const r = await fx.run(bashTool, { command: "head -c 200000 /dev/zero | tr '\\0' x; echo; echo last-line", run_in_background: true });
    const id = jobIdOf(r.output);
    const all = await readUntil(id, (s) => s.includes("exited 0"));
    expect(all).toContain("[output beyond 4096 bytes is not kept; the job runs on]");
    expect(all).toMatch(/exited 0 after \d+s; 19\d+ bytes beyond the output cap were not kept/);
    expect(all).not.toContain("last-line");
    const log = join(fx.home, "sessions", "s", "jobs", `${id}.log`);
    expect(statSync(log).size).toBeLessThan(4096 + 200);
  });

  enforced("bash_kill sends SIGTERM to the command inside the sandbox first: its trap runs", async () => {
    withJobs();
    const r = await fx.run(bashTool, { command: "trap 'echo got-term; exit 0' TERM; echo armed; while true; do sleep 0.1; done", run_in_background: true });
    const id = jobIdOf(r.output);
    await readUntil(id, (s) => s.includes("armed"));
    await fx.run(bashKillTool, { job_id: id });
    const rest = await fx.run(bashOutputTool, { job_id: id });
    expect(rest.output).toContain("got-term");
    expect(rest.output).toContain(`[${id} killed`);
  });

  test("a job whose command ignores SIGTERM is killed after the grace", async () => {
    fx = fixture({ sandbox: { bash: "off" } });
    table = new JobTable(join(fx.home, "jobs"), { graceMs: 300 });
    fx.ctx.jobs = table;
    const marker = `${fx.ws}/stubborn`;
    const r = await fx.run(bashTool, { command: `trap '' TERM; echo armed; while true; do sleep 0.1; done # ${marker}`, run_in_background: true });
    const id = jobIdOf(r.output);
    await readUntil(id, (s) => s.includes("armed"));
    const killed = await fx.run(bashKillTool, { job_id: id });
    expect(killed.output).toContain(`[${id} killed (SIGKILL)`);
    await pollFor("no process of the job left", () => processesMentioning(marker), (ps) => ps.length === 0, { timeoutMs: 10_000 });
  });

  enforced("a job killed the moment it starts leaves nothing behind (20 rounds)", async () => {
    withJobs();
    for (let i = 0; i < 20; i++) {
      const marker = `${fx.ws}/round-${i}`;
      const r = await fx.run(bashTool, { command: `while true; do sleep 0.2; done # ${marker}`, run_in_background: true });
      const killed = await fx.run(bashKillTool, { job_id: jobIdOf(r.output) });
      expect(killed.output).toContain("killed");
      await pollFor(`no process of round ${i} left`, () => processesMentioning(marker), (ps) => ps.length === 0, { timeoutMs: 10_000 });
    }
  });

  enforced("closing the table kills a job still running and removes the logs", async () => {
    withJobs();
    const r = await fx.run(bashTool, { command: `while true; do echo alive; sleep 0.2; done # ${fx.ws}`, run_in_background: true });
    const id = jobIdOf(r.output);
    await readUntil(id, (s) => s.includes("alive"));
    const pid = table!.get(id)!.pid;
    expect(processesMentioning(fx.ws).length).toBeGreaterThan(0);
    await table!.closeAll();
    expect(table!.get(id)!.status).toBe("killed");
    expect(() => process.kill(pid, 0)).toThrow();
    await pollFor("no process of the job left", () => processesMentioning(fx.ws), (ps) => ps.length === 0, { timeoutMs: 10_000 });
    expect(existsSync(join(fx.home, "sessions", "s", "jobs"))).toBe(false);
    const late = await fx.run(bashTool, { command: "echo late", run_in_background: true });
    expect(late.ok).toBe(false);
    expect(late.output).toContain("closing");
  });
});

describe("a process that exits without closing its session", () => {
  for (const mode of ["off", "enforce"] as const) {
    const run = mode === "enforce" && !status.available ? test.skip : test;
    run(`leaves no job behind (sandbox.bash = "${mode}")`, async () => {
      fx = fixture({ sandbox: { bash: mode } });
      const marker = `exit-marker-${process.pid}-${mode}-${Date.now()}`;
      const script = fx.write("child.ts", `
        import { bashTool } from ${JSON.stringify(join(import.meta.dir, "../builtin/bash.ts"))};
        import { JobTable } from ${JSON.stringify(join(import.meta.dir, "../jobs.ts"))};
        import { createPathPolicy } from ${JSON.stringify(join(import.meta.dir, "../../policy/paths.ts"))};
        const ws = ${JSON.stringify(fx.ws)};
        const sandbox = { bash: ${JSON.stringify(mode)} };
        const jobs = new JobTable(${JSON.stringify(join(fx.home, "jobs"))});
        const r = await bashTool.run({ command: "echo up; while true; do sleep 0.2; done # ${marker}", run_in_background: true }, {
          workspace: ws, sessionId: "s", tmpDir: ${JSON.stringify(join(fx.outside, "tmp"))}, signal: new AbortController().signal,
          beforeWrite: async () => {}, readStamps: new Map(), config: { sandbox, tools: {} }, extraWriteRoots: [], jobs,
          pathPolicy: createPathPolicy({ config: sandbox, cwd: ws, reasonixHome: ${JSON.stringify(fx.home)} }),
        });
        let seen = "";
        for (let i = 0; i < 600 && !seen.includes("up"); i++) (seen += jobs.read("job-1")?.text ?? ""), await Bun.sleep(50);
        console.log(JSON.stringify({ ok: r.ok, up: seen.includes("up") }));
        process.exit(0);
      `);
      const child = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "pipe", env: { ...process.env, REASONIX_HOME: fx.home } });
      const out = await new Response(child.stdout).text();
      expect(await child.exited).toBe(0);
      expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({ ok: true, up: true });
      await pollFor("no process of the job left after its owner exited", () => processesMentioning(marker), (ps) => ps.length === 0, { timeoutMs: 10_000 });
    });
  }
});

describe("background jobs: refusals", () => {
  test("without a job table (no session) the call says so and runs nothing", async () => {
    fx = fixture({ sandbox: { bash: "off" } });
    const r = await fx.run(bashTool, { command: "echo ran > ran.txt", run_in_background: true });
    expect(r).toEqual({ ok: false, output: "background jobs are not available here: run the command in the foreground" });
    expect(existsSync(join(fx.ws, "ran.txt"))).toBe(false);
  });
  test("a read-only bash refuses background jobs", async () => {
    withJobs();
    const r = await fx.run(readOnlyBash(bashTool), { command: "ls", run_in_background: true });
    expect(r.ok).toBe(false);
    expect(r.output).toContain("foreground only");
    expect(table!.list()).toEqual([]);
  });
  test("unknown ids and bad filters are named", async () => {
    withJobs();
    expect((await fx.run(bashOutputTool, { job_id: "job-9" })).output).toBe('no background job "job-9" in this session');
    expect((await fx.run(bashKillTool, { job_id: "job-9" })).ok).toBe(false);
    const bad = await fx.run(bashOutputTool, { job_id: "job-1", filter: "(" });
    expect(bad.output).toContain("not a valid regular expression");
  });
});
