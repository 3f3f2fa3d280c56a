// `reasonix run --goal` through the real CLI against the scripted LLM: exit
// codes, and a goal that survives kill -9 of its process and is resumed by a
// new one from the session files.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { mainTs, makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { pollFor } from "../../core/testing/fresh-wait.ts";

let llm: ScriptedServer;
let ce: CliEnv;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0], extraToml = "") {
  llm = await startScriptedOpenAI(steps);
  ce = makeCliEnv(llm.url, { extraToml });
  cleanups.push(() => llm.close(), () => ce.cleanup());
}

const report = (status: string, evidence: string) => ({ name: "update_goal", arguments: { status, evidence } });

const sessionLog = (): { id: string; records: any[] } => {
  const dir = join(ce.home, "sessions");
  const file = readdirSync(dir).find((f) => f.endsWith(".jsonl"))!;
  const records = readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  return { id: file.replace(/\.jsonl$/, ""), records };
};

test("run --goal: works across turns until update_goal complete; exit 0", async () => {
  await setup([
    { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "a" } }, report("continue", "a.txt written, b.txt left")] },
    { text: "a done" },
    { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "b" } }, report("complete", "a.txt and b.txt written")] },
    { text: "All files written." },
  ]);
  const r = await runCli(ce, ["run", "--auto", "--goal", "write a.txt and b.txt"]);
  expect(r.stderr).toContain("goal started: write a.txt and b.txt");
  expect(r.stderr).toContain("goal complete: a.txt and b.txt written");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("All files written.");
  expect(readFileSync(join(ce.workspace, "b.txt"), "utf8")).toBe("b");
  expect(llm.chatRequests()).toHaveLength(4);
});

test("run --goal: blocked exits 1 with the reason (json output carries the goal)", async () => {
  await setup([{ toolCalls: [report("blocked", "which database should I migrate?")] }, { text: "I need a decision." }]);
  const r = await runCli(ce, ["run", "--goal", "migrate the database", "--output-format", "json"]);
  expect(r.code).toBe(1);
  const out = JSON.parse(r.stdout);
  expect(out.exit_code).toBe(1);
  expect(out.goal.status).toBe("blocked");
  expect(out.error).toBe("goal blocked: which database should I migrate?");
});

test("run --goal: an evaluator failure pauses the goal; exit 1 with the reason and how to resume", async () => {
  await setup([{ text: "did something" }, { kind: "error", status: 503, message: "overloaded" }]);
  const r = await runCli(ce, ["run", "--goal", "do something"]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("goal paused: the turn ended without update_goal and the goal evaluator failed");
  expect(r.stderr).toMatch(/continue with: reasonix run --resume \S+ --goal/);
});

test("run --goal usage errors exit 2", async () => {
  await setup([]);
  const none = await runCli(ce, ["run", "--goal", ""]);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain("--goal needs an objective");
  const both = await runCli(ce, ["run", "--goal", "x", "y"]);
  expect(both.code).toBe(2);
  expect(llm.chatRequests()).toHaveLength(0);
});

test("a goal survives kill -9 of its process and resumes from the session files", async () => {
  await setup([
    { toolCalls: [{ name: "write_file", arguments: { path: "one.txt", content: "1" } }, report("continue", "one.txt written")] },
    { text: "turn one done" },
    // Goal turn 2 hangs: the process is killed while it waits.
    { text: "never delivered", delayMs: 120_000 },
    // After resume.
    { toolCalls: [{ name: "write_file", arguments: { path: "two.txt", content: "2" } }, report("complete", "one.txt and two.txt exist")] },
    { text: "Both files exist." },
  ]);
  const child = Bun.spawn([process.execPath, mainTs, "run", "--auto", "--goal", "write one.txt and two.txt"], { cwd: ce.workspace, env: ce.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  cleanups.push(() => clearTimeout(killer), () => child.kill("SIGKILL"));
  // Wait (bounded) until goal turn 2's request is in flight, then kill -9.
  await pollFor("goal turn 2's request", () => llm.chatRequests().length, (n) => n >= 3);
  expect(llm.chatRequests()).toHaveLength(3);
  child.kill("SIGKILL");
  expect(await child.exited).not.toBe(0);
  expect(child.signalCode).toBe("SIGKILL");

  const before = sessionLog();
  const goalsBefore = before.records.filter((r) => r.t === "goal");
  expect(goalsBefore.map((r) => r.change)).toEqual(["started", "turn"]);
  expect(goalsBefore.at(-1).goal.status).toBe("active");
  expect(existsSync(join(ce.workspace, "one.txt"))).toBe(true);

  const r = await runCli(ce, ["run", "--auto", "--resume", before.id, "--goal"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("goal resumed");
  expect(r.stdout).toContain("Both files exist.");
  expect(readFileSync(join(ce.workspace, "two.txt"), "utf8")).toBe("2");
  const after = sessionLog();
  const goals = after.records.filter((r) => r.t === "goal");
  expect(goals.map((r) => r.change)).toEqual(["started", "turn", "paused", "resumed", "complete"]);
  expect(goals[2].goal.pauseCode).toBe("interrupted");
  expect(goals.at(-1).goal.turns).toBe(2);
  // The interrupted turn was closed on reopen; the resumed turn continues the same conversation.
  expect(after.records.some((r) => r.t === "turn_end" && /interrupted/.test(r.error ?? ""))).toBe(true);
  const resumed = llm.chatRequests()[3]!.body.messages;
  expect(resumed.at(-1).content).toContain("goal turn 2");
  expect(JSON.stringify(resumed)).toContain("one.txt written");
});
