import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent, EngineSession } from "../../engine/types.ts";
import type { ScriptStep } from "../../testing/scripted-llm.ts";
import { setup as startSetup, type Setup } from "./helpers.ts";

let cur: Setup | undefined;
afterEach(async () => {
  await cur?.close();
  cur = undefined;
});
const setup = async (...a: Parameters<typeof startSetup>) => (cur = await startSetup(...a));

const PLAN = {
  summary: "Write a.txt with the greeting the notes ask for.",
  steps: ["read notes.txt", "write a.txt"],
  verified_touchpoints: ["notes.txt"],
  candidate_touchpoints: ["a.txt"],
  non_goals: ["no other files"],
  risks: ["overwriting an existing a.txt"],
  acceptance_criteria: ["a.txt contains hello"],
  verification_commands: ["cat a.txt"],
};
const submit = (args: Record<string, unknown> = PLAN): ScriptStep => ({ toolCalls: [{ name: "submit_plan", arguments: args }] });
const writeA: ScriptStep = { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "hello" } }] };

function answering(s: EngineSession, decisions: ("once" | "deny")[] = []): EngineEvent[] {
  const evs: EngineEvent[] = [];
  s.subscribe((e) => {
    evs.push(e);
    if (e.type === "approval_request") queueMicrotask(() => s.approve(e.callId, decisions.shift() ?? "deny"));
  });
  return evs;
}
const plans = (evs: EngineEvent[]) => evs.filter((e): e is Extract<EngineEvent, { type: "plan" }> => e.type === "plan");
const lastContent = (body: any) => body.messages.at(-1).content as string;

describe("planner routes", () => {
  test("plan first: the planner researches read-only, submits; the executor gets the plan at the tail and carries on", async () => {
    const { exec, plan, sb, engine } = await setup([writeA, { text: "wrote a.txt" }], [{ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, submit()]);
    const s = await engine.createSession();
    const evs = answering(s);
    expect(await s.submit("plan first, then write a.txt as the notes say")).toBe("done");
    expect(existsSync(join(sb.workspace, "a.txt"))).toBe(true);
    const p = plans(evs);
    expect(p).toHaveLength(1);
    expect(p[0]!.route).toBe("plan_first");
    expect(p[0]!.plan).toMatchObject({ summary: PLAN.summary, verifiedTouchpoints: ["notes.txt"], candidateTouchpoints: ["a.txt"], verificationCommands: ["cat a.txt"] });
    expect(p[0]!.text).toContain("### Verified touchpoints");
    // The planner: read-only tools + submit_plan, the project instructions, the route block; its read ran.
    const preq = plan.chatRequests();
    expect(preq).toHaveLength(2);
    expect(preq[0]!.body.tools.map((t: any) => t.function.name)).toEqual(["read_file", "slow_read", "submit_plan"]);
    expect(JSON.stringify(preq[0]!.body.messages)).toContain("Project rule: keep files small.");
    expect(lastContent(preq[0]!.body)).toMatch(/^<planner-turn route="plan_first">/);
    expect(lastContent(preq[1]!.body)).toBe("say hello\n");
    // The executor: the user's request, then the plan at the tail.
    const ereq = exec.chatRequests()[0]!.body;
    expect(ereq.messages.at(-2).content).toBe("plan first, then write a.txt as the notes say");
    expect(lastContent(ereq)).toMatch(/^<plan source="planner">\n## Plan\nWrite a.txt/);
    // history() replays the plan event.
    expect(s.history().filter((e) => e.type === "plan")).toHaveLength(1);
  });

  test("plan only: the turn ends with the plan saved; nothing executes; a resumed session still shows it", async () => {
    const { exec, sb, engine } = await setup([], [submit()]);
    const s = await engine.createSession();
    const evs = answering(s);
    expect(await s.submit("plan only: how would you write a.txt?")).toBe("done");
    expect(exec.chatRequests()).toHaveLength(0);
    expect(existsSync(join(sb.workspace, "a.txt"))).toBe(false);
    expect(plans(evs)[0]!.route).toBe("plan_only");
    const answer = evs.filter((e) => e.type === "assistant").at(-1) as Extract<EngineEvent, { type: "assistant" }>;
    expect(answer.text).toContain("Plan only: nothing was executed");
    const id = s.id;
    await s.close();
    const again = await engine.resumeSession(id);
    expect(again.history().filter((e) => e.type === "plan")).toHaveLength(1);
  });

  test("approval: the plan waits for the user; approving starts the executor with the approved plan", async () => {
    const { exec, sb, engine } = await setup([writeA, { text: "done" }], [submit()], { headless: false });
    const s = await engine.createSession();
    const evs = answering(s, ["once"]);
    expect(await s.submit("plan the change and wait for my approval")).toBe("done");
    const asked = evs.filter((e) => e.type === "approval_request") as Extract<EngineEvent, { type: "approval_request" }>[];
    expect(asked).toHaveLength(1);
    expect(asked[0]!.name).toBe("submit_plan");
    expect(asked[0]!.summary).toMatch(/^plan: Write a.txt/);
    expect(existsSync(join(sb.workspace, "a.txt"))).toBe(true);
    expect(lastContent(exec.chatRequests()[0]!.body)).toMatch(/^<plan source="planner" approved="true">/);
  });

  test("approval refused: nothing executes, the turn ends denied with the plan saved", async () => {
    const { exec, engine } = await setup([], [submit()], { headless: false });
    const s = await engine.createSession();
    answering(s, ["deny"]);
    expect(await s.submit("plan the change and wait for my approval")).toBe("denied");
    expect(exec.chatRequests()).toHaveLength(0);
    expect(s.history().filter((e) => e.type === "plan")).toHaveLength(1);
  });

  test("the planner cannot write even when it tries: writers are not offered, bash runs only read-only commands", async () => {
    const writeB: ScriptStep = { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "x" } }] };
    const bashWrite: ScriptStep = { toolCalls: [{ name: "bash", arguments: { command: "echo pwned > c.txt" } }] };
    const bashRead: ScriptStep = { toolCalls: [{ name: "bash", arguments: { command: "cat notes.txt" } }] };
    const { exec, plan, sb, engine } = await setup([], [writeB, bashWrite, bashRead, submit()], { builtinTools: true });
    const s = await engine.createSession();
    answering(s);
    expect(await s.submit("plan only: write b.txt and c.txt")).toBe("done");
    expect(existsSync(join(sb.workspace, "b.txt"))).toBe(false);
    expect(existsSync(join(sb.workspace, "c.txt"))).toBe(false);
    expect(exec.chatRequests()).toHaveLength(0);
    const reqs = plan.chatRequests();
    const offered = reqs[0]!.body.tools.map((t: any) => t.function.name);
    expect(offered).toContain("bash");
    expect(offered).toContain("read_file");
    for (const writer of ["write_file", "edit_file", "multi_edit", "move_file", "todo_write", "task"]) expect(offered).not.toContain(writer);
    expect(lastContent(reqs[1]!.body)).toMatch(/unknown tool "write_file": the planner has only read-only tools/);
    expect(lastContent(reqs[2]!.body)).toMatch(/^Refused: this session is read-only and `echo pwned > c.txt` is not a read-only command/);
    expect(lastContent(reqs[3]!.body)).toContain("say hello");
  });

  test("ordinary requests and quoted examples stay with the executor", async () => {
    const { exec, plan, engine } = await setup([{ text: "ok" }, { text: "ok" }], []);
    const s = await engine.createSession();
    expect(await s.submit("fix the login bug")).toBe("done");
    expect(await s.submit('document that "plan first" starts the planner')).toBe("done");
    expect(plan.chatRequests()).toHaveLength(0);
    expect(exec.chatRequests()).toHaveLength(2);
  });
});

describe("planner failure", () => {
  test("plan first falls back to the executor with the original request (and says so)", async () => {
    const { exec, engine } = await setup([{ text: "did it without a plan" }], [{ kind: "error", status: 400, message: "planner model missing" }]);
    const s = await engine.createSession();
    const evs = answering(s);
    expect(await s.submit("plan first, then tidy notes.txt")).toBe("done");
    const w = evs.find((e) => e.type === "warning" && e.code === "planner_fallback") as Extract<EngineEvent, { type: "warning" }>;
    expect(w.message).toMatch(/planner \(planner\) did not deliver a plan: .*planner model missing; the executor carries on/);
    expect(lastContent(exec.chatRequests()[0]!.body)).toBe("plan first, then tidy notes.txt");
  });

  const closed: [string, string, ScriptStep[]][] = [
    ["plan only, HTTP error", "plan only: restructure notes.txt", [{ kind: "error", status: 400, message: "planner model missing" }]],
    ["approval, never submits", "plan it and wait for my approval", Array.from({ length: 9 }, () => ({ text: "Here is my plan in prose." }))],
  ];
  for (const [name, prompt, steps] of closed) {
    test(`${name}: fails closed, nothing executes, the turn is rolled back`, async () => {
      const { exec, engine } = await setup([{ text: "next answer" }], steps, { headless: false });
      const s = await engine.createSession();
      const evs = answering(s, ["once"]);
      expect(await s.submit(prompt)).toBe("error");
      expect(exec.chatRequests()).toHaveLength(0);
      const end = evs.find((e) => e.type === "turn_end") as Extract<EngineEvent, { type: "turn_end" }>;
      expect(end.error).toMatch(/did not deliver a plan: .*Nothing was executed .*fails closed.*rolled back/);
      expect(evs.some((e) => e.type === "approval_request")).toBe(false);
      // Rolled back: the next turn's conversation has no trace of the failed request.
      expect(s.turns!()).toEqual([]);
      expect(await s.submit("hello")).toBe("done");
      const msgs = exec.chatRequests()[0]!.body.messages.map((m: any) => m.content);
      expect(msgs.some((c: string) => c === prompt)).toBe(false);
      expect(s.history().some((e) => e.type === "warning" && e.code === "planner_rolled_back")).toBe(true);
    });
  }

  test("headless approval route: the plan is saved, nothing executes, the turn ends denied", async () => {
    const { exec, engine } = await setup([], [submit()]);
    const s = await engine.createSession();
    const evs = answering(s);
    expect(await s.submit("plan this and wait for my approval")).toBe("denied");
    expect(exec.chatRequests()).toHaveLength(0);
    expect((evs.find((e) => e.type === "turn_end") as any).error).toMatch(/headless run cannot ask/);
  });
});

describe("separate cache-stable prefixes", () => {
  test("planner and executor each send byte-identical system prompts and tool lists across the session, and differ from each other", async () => {
    const { exec, plan, engine } = await setup(
      [{ text: "one" }, { text: "two" }, { text: "three" }],
      [{ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, submit(), submit()],
    );
    const s = await engine.createSession();
    expect(await s.submit("plan first: greet")).toBe("done");
    expect(await s.submit("an ordinary request")).toBe("done");
    expect(await s.submit("plan first: greet again")).toBe("done");
    const prefix = (r: { body: any }) => JSON.stringify({ system: r.body.messages[0], tools: r.body.tools });
    const p = plan.chatRequests().map(prefix);
    const e = exec.chatRequests().map(prefix);
    expect(p).toHaveLength(3);
    expect(e).toHaveLength(3);
    expect(new Set(p).size).toBe(1);
    expect(new Set(e).size).toBe(1);
    expect(p[0]).not.toBe(e[0]);
    // The planner's conversation starts with the same preamble bytes on every run.
    const preambles = plan.chatRequests().map((r) => JSON.stringify(r.body.messages.slice(0, 2)));
    expect(new Set(preambles).size).toBe(1);
  });
});
