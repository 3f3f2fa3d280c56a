// Background shell jobs through the engine (scripted model, real bwrap):
// started by a tool call, read in a later turn, listed by /jobs, killed when
// the session closes; approval in ask mode; the tool block never changes.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "../../host/commands/index.ts";
import { SessionHost } from "../../host/session-host.ts";
import { probeSandbox } from "../../sandbox/index.ts";
import { pollFor } from "../../testing/fresh-wait.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { processesMentioning } from "../../testing/processes.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import { registerBuiltinTools } from "../../tools/builtin/index.ts";
import type { EngineEvent, EngineSession } from "../types.ts";
import { engineFor, makeSandbox, providerConfig } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// Waits are bounded by their own timeouts (a loaded machine: 2 cores shared by many suites).
setDefaultTimeout(120_000);

const status = await probeSandbox();
if (!status.available) console.warn(`SKIPPED background jobs through the engine: the OS sandbox is unavailable (${status.cause})`);
const enforced = status.available ? test : test.skip;

function builtins(): ToolRegistry {
  const r = new ToolRegistry();
  registerBuiltinTools(r);
  return r;
}

async function setup(mode: "ask" | "yolo", script: Parameters<typeof startScriptedOpenAI>[0]) {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI(script);
  const config = { ...providerConfig(llm.url), sandbox: { bash: "enforce" } };
  const engine = engineFor(sb, llm.url, { config, tools: builtins(), permissionMode: mode });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  return { sb, llm, engine, s };
}

/** The job's log file in the session's state directory, once it exists. */
function logOf(home: string, id: string): string | undefined {
  const hit = readdirSync(home, { recursive: true, encoding: "utf8" }).find((p) => p.endsWith(join("jobs", `${id}.log`)));
  return hit && join(home, hit);
}

const toolResults = (s: EngineSession) => s.history().filter((e): e is Extract<EngineEvent, { type: "tool_result" }> => e.type === "tool_result");

describe("background jobs in a session", () => {
  enforced("started in one turn, read in the next, listed by /jobs, killed when the session closes", async () => {
    const marker = `marker-${process.pid}-${Date.now()}`;
    const { sb, llm, engine, s } = await setup("yolo", [
      { toolCalls: [{ name: "bash", arguments: { command: `echo ready-line; while true; do sleep 0.2; done # ${marker}`, run_in_background: true } }] },
      { text: "started" },
      { toolCalls: [{ name: "bash_output", arguments: { job_id: "job-1" } }] },
      { text: "it is up" },
    ]);
    expect(await s.submit("start the server")).toBe("done");
    expect(toolResults(s)[0]!.output).toContain("started background job job-1");
    // The turn ended; the job did not.
    const log = await pollFor("the job's first line on disk", () => { const p = logOf(sb.home, "job-1"); return p ? readFileSync(p, "utf8") : ""; }, (t) => t.includes("ready-line"), { timeoutMs: 60_000 });
    expect(log).toContain("ready-line");
    expect(s.listJobs().map((j) => [j.id, j.status])).toEqual([["job-1", "running"]]);

    expect(await s.submit("is it up?")).toBe("done");
    const read = toolResults(s)[1]!.output;
    expect(read).toContain("ready-line");
    expect(read).toMatch(/\[job-1 running after \d+s\]/);

    const host = new SessionHost(engine, s);
    const jobs = (await runCommand({ surface: "chat", host }, "jobs"))!;
    expect(jobs.lines[0]).toBe("Background jobs (1 running)");
    expect(jobs.lines[2]).toMatch(/^ {2}job-1 {2}running +\d+s +echo ready-line; while true/);
    expect((await runCommand({ surface: "web", host }, "jobs"))!.ok).toBe(true);
    expect((await runCommand({ surface: "run", host }, "jobs"))!.unavailable).toBe(true);

    // The tool block is the same in every request, with the job tools in it.
    const requests = llm.chatRequests();
    expect(requests.length).toBe(4);
    const blocks = new Set(requests.map((r) => JSON.stringify(r.body.tools)));
    expect(blocks.size).toBe(1);
    const names = (requests[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names).toContain("bash_output");
    expect(names).toContain("bash_kill");
    expect(JSON.stringify(requests[0]!.body.tools)).toContain("run_in_background");

    expect(processesMentioning(marker).length).toBeGreaterThan(0);
    const pid = s.listJobs()[0]!.pid;
    await s.close();
    expect(() => process.kill(pid, 0)).toThrow();
    await pollFor("no process of the job left", () => processesMentioning(marker), (ps) => ps.length === 0, { timeoutMs: 10_000 });
    expect(s.listJobs()[0]!.status).toBe("killed");
    expect(logOf(sb.home, "job-1")).toBeUndefined();
  });

  enforced("a model switch reopens the conversation with its jobs still running; closing that one kills them", async () => {
    const marker = `switch-marker-${process.pid}-${Date.now()}`;
    const { sb, engine, s } = await setup("yolo", [
      { toolCalls: [{ name: "bash", arguments: { command: `echo first-line; while true; do sleep 0.2; done # ${marker}`, run_in_background: true } }] },
      { text: "started" },
      { toolCalls: [{ name: "bash_output", arguments: { job_id: "job-1" } }] },
      { text: "still up" },
    ]);
    expect(await s.submit("start it")).toBe("done");
    await pollFor("the job's first line on disk", () => { const p = logOf(sb.home, "job-1"); return p ? readFileSync(p, "utf8") : ""; }, (t) => t.includes("first-line"), { timeoutMs: 60_000 });
    const pid = s.listJobs()[0]!.pid;
    const host = new SessionHost(engine, s);
    const next = await host.switchModel("scripted");
    expect(next).not.toBe(s);
    expect(next.listJobs().map((j) => [j.id, j.status, j.pid])).toEqual([["job-1", "running", pid]]);
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(await next.submit("still up?")).toBe("done");
    expect(toolResults(next).at(-1)!.output).toContain("first-line");
    await next.close();
    await pollFor("no process of the job left", () => processesMentioning(marker), (ps) => ps.length === 0, { timeoutMs: 10_000 });
  });

  enforced("ask mode: a background command asks first; denied, it never runs; approved, it does", async () => {
    const { sb, s } = await setup("ask", [
      // A denial ends the turn: no model step follows it.
      { toolCalls: [{ name: "bash", arguments: { command: "touch denied.txt; sleep 60", run_in_background: true } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "touch approved.txt; sleep 60", run_in_background: true } }] },
      { text: "running" },
    ]);
    const asked: Extract<EngineEvent, { type: "approval_request" }>[] = [];
    const answers: ("deny" | "once")[] = ["deny", "once"];
    s.subscribe((e) => {
      if (e.type === "approval_request") {
        asked.push(e);
        s.approve(e.callId, answers.shift() ?? "deny");
      }
    });
    await s.submit("start it");
    expect(asked.length).toBe(1);
    expect(asked[0]!.name).toBe("bash");
    expect(asked[0]!.summary).toBe("bash (background): touch denied.txt; sleep 60");
    expect(s.listJobs()).toEqual([]);
    expect(existsSync(join(sb.workspace, "denied.txt"))).toBe(false);

    expect(await s.submit("start it, approved")).toBe("done");
    expect(asked.length).toBe(2);
    expect(s.listJobs().map((j) => j.id)).toEqual(["job-1"]);
    await pollFor("the approved job's file", () => existsSync(join(sb.workspace, "approved.txt")), (v) => v, { timeoutMs: 60_000 });
    // Still nothing from the denied call.
    expect(existsSync(join(sb.workspace, "denied.txt"))).toBe(false);
  });
});
