// Goal mode against the scripted LLM over real HTTP: the loop across turns,
// update_goal, the bounded evaluator and its failures, budgets and limits.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { EngineEvent } from "../../engine/types.ts";
import { EVALUATOR_SYSTEM } from "../prompts.ts";
import { cleanupAfterEach, isEvaluator, report, rig } from "./helpers.ts";

cleanupAfterEach();

const goalEvents = (events: EngineEvent[]) => events.filter((e): e is Extract<EngineEvent, { type: "goal" }> => e.type === "goal");

test("a goal keeps working across turns until update_goal complete", async () => {
  const { llm, s, events, sb } = await rig([
    { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "one" } }] },
    { toolCalls: [report("continue", "wrote a.txt; b.txt is left")] },
    { text: "first part done" },
    { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "two" } }] },
    { toolCalls: [report("complete", "a.txt and b.txt exist")] },
    { text: "all done" },
  ]);
  const final = await s.goal!.start("create a.txt and b.txt");
  expect(final.status).toBe("complete");
  expect(final.reason).toBe("a.txt and b.txt exist");
  expect(final.turns).toBe(2);
  expect(final.requests).toBe(6);
  expect(readFileSync(`${sb.workspace}/b.txt`, "utf8")).toBe("two");
  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(6);
  expect(reqs.some(isEvaluator)).toBe(false);
  // Cache-stable prefix: the same system prompt and tool block in every goal request.
  for (const r of reqs) {
    expect(JSON.stringify(r.body.tools)).toBe(JSON.stringify(reqs[0]!.body.tools));
    expect(r.body.messages[0]).toEqual(reqs[0]!.body.messages[0]);
  }
  expect(reqs[0]!.body.messages.at(-1).content).toContain("create a.txt and b.txt");
  expect(reqs[3]!.body.messages.at(-1).content).toContain("goal turn 2");
  expect(goalEvents(events).map((e) => e.change)).toEqual(["started", "turn", "complete"]);
  // history() replays the goal events for a front end that reconnects.
  expect(goalEvents(s.history()).map((e) => e.change)).toEqual(["started", "turn", "complete"]);
  expect(s.goal!.running).toBe(false);
});

test("a turn without update_goal is judged by one evaluator call", async () => {
  const { llm, s } = await rig([
    { text: "I wrote nothing but the answer is 42." },
    { text: '```json\n{"status": "complete", "reason": "the answer was given"}\n```' },
  ]);
  const final = await s.goal!.start("find the answer");
  expect(final.status).toBe("complete");
  expect(final.reason).toBe("the answer was given");
  expect(final.requests).toBe(2);
  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(2);
  expect(isEvaluator(reqs[1]!)).toBe(true);
  expect(reqs[1]!.body.messages[0]).toEqual({ role: "system", content: EVALUATOR_SYSTEM });
  expect(reqs[1]!.body.messages.at(-1).content).toContain("find the answer");
  expect(reqs[1]!.body.messages.at(-1).content).toContain("the answer is 42");
});

test("the evaluator saying continue runs another goal turn", async () => {
  const { llm, s, events } = await rig([
    { text: "started looking" },
    { text: '{"status": "continue", "reason": "nothing shown yet"}' },
    { toolCalls: [report("complete", "done now")] },
    { text: "ok" },
  ]);
  const final = await s.goal!.start("look around");
  expect(final.status).toBe("complete");
  expect(final.turns).toBe(2);
  expect(llm.chatRequests().filter(isEvaluator)).toHaveLength(1);
  expect(goalEvents(events).find((e) => e.change === "turn")!.message).toContain("nothing shown yet");
});

test("a malformed evaluator answer pauses the goal with the reason", async () => {
  const { s, llm } = await rig([{ text: "did a thing" }, { text: "Looks good to me!" }]);
  const final = await s.goal!.start("do a thing");
  expect(final.status).toBe("paused");
  expect(final.pauseCode).toBe("evaluator");
  expect(final.reason).toContain("not JSON");
  expect(llm.chatRequests()).toHaveLength(2);
  // JSON without a valid status fails the same way.
  llm.push({ toolCalls: [report("continue", "more to do")] }, { text: "next" }, { text: "still working" }, { text: '{"status": "maybe"}' });
  const again = await s.goal!.resume();
  expect(again.status).toBe("paused");
  expect(again.reason).toContain("no status");
  expect(again.turns).toBe(3);
});

test("an HTTP error from the evaluator pauses the goal (no retry, no silent continue)", async () => {
  const { s, llm } = await rig([{ text: "did a thing" }, { kind: "error", status: 500, message: "evaluator backend down" }]);
  const final = await s.goal!.start("do a thing");
  expect(final.status).toBe("paused");
  expect(final.pauseCode).toBe("evaluator");
  expect(final.reason).toContain("evaluator request failed");
  expect(llm.chatRequests()).toHaveLength(2);
});

test("an evaluator past its deadline pauses the goal", async () => {
  const { s } = await rig([{ text: "did a thing" }, { text: '{"status":"complete","reason":"late"}', delayMs: 5000 }], { goal_evaluator_timeout_seconds: 0.3 });
  const t0 = Date.now();
  const final = await s.goal!.start("do a thing");
  expect(final.status).toBe("paused");
  expect(final.reason).toContain("did not answer within");
  expect(Date.now() - t0).toBeLessThan(4500);
});

test("update_goal blocked stops the goal with what is needed; resume continues it", async () => {
  const { s, llm } = await rig([{ toolCalls: [report("blocked", "need the staging password")] }, { text: "waiting for you" }]);
  const final = await s.goal!.start("deploy to staging");
  expect(final.status).toBe("blocked");
  expect(final.reason).toBe("need the staging password");
  expect(() => s.goal!.start("another")).toThrow(/already has a blocked goal/);
  llm.push({ toolCalls: [report("complete", "deployed")] }, { text: "done" });
  const after = await s.goal!.resume();
  expect(after.status).toBe("complete");
  expect(after.turns).toBe(2);
});

test("goal_max_turns bounds the loop with a resumable pause", async () => {
  const { s, llm } = await rig(
    [
      { toolCalls: [report("continue", "step 1")] },
      { text: "1" },
      { toolCalls: [report("continue", "step 2")] },
      { text: "2" },
    ],
    { goal_max_turns: 2 },
  );
  const final = await s.goal!.start("count");
  expect(final.status).toBe("paused");
  expect(final.pauseCode).toBe("turn_limit");
  expect(final.turns).toBe(2);
  expect(llm.pending()).toBe(0);
  llm.push({ toolCalls: [report("complete", "counted")] }, { text: "3" });
  expect((await s.goal!.resume()).status).toBe("complete");
});

test("goal_token_budget: one summary turn, then a resumable budget_spend pause with a fresh slice on resume", async () => {
  const usage = { input: 70, output: 40 };
  const { s, llm } = await rig(
    [
      { toolCalls: [report("continue", "half way")], usage },
      { text: "halfway", usage },
      { text: "Summary: half of it is done; next, the other half.", usage },
    ],
    { goal_token_budget: 200 },
  );
  const final = await s.goal!.start("do it in halves");
  expect(final.status).toBe("paused");
  expect(final.pauseCode).toBe("budget_spend");
  expect(final.turns).toBe(2);
  expect(final.tokens).toBe(330);
  const paused = goalEvents(s.history()).at(-1)!;
  expect(paused.message).toContain("Summary: half of it is done");
  const summaryReq = llm.chatRequests()[2]!;
  expect(summaryReq.body.messages.at(-1).content).toContain("token budget");
  llm.push({ toolCalls: [report("complete", "other half done")], usage }, { text: "done", usage });
  const after = await s.goal!.resume();
  expect(after.status).toBe("complete");
  expect(after.budgetFrom).toBe(330);
  expect(after.tokens).toBe(550);
  expect(after.turns).toBe(3);
});

test("without goal_token_budget there is no budget pause", async () => {
  const usage = { input: 100000, output: 100000 };
  const { s } = await rig([{ toolCalls: [report("continue", "a")], usage }, { text: "a", usage }, { toolCalls: [report("complete", "b")], usage }, { text: "b", usage }]);
  const final = await s.goal!.start("big");
  expect(final.status).toBe("complete");
  expect(final.tokenBudget).toBe(0);
});

test("update_goal outside a goal refuses with the reason", async () => {
  const { s, llm } = await rig([{ toolCalls: [report("complete", "x")] }, { text: "ok" }]);
  expect(await s.submit("hello")).toBe("done");
  const tool = llm.chatRequests()[1]!.body.messages.at(-1);
  expect(tool.role).toBe("tool");
  expect(tool.content).toContain("no goal is running");
});

test("/goal pause lands after the running turn; clear drops the goal", async () => {
  const { s } = await rig([{ toolCalls: [report("continue", "more")], delayMs: 300 }, { text: "one" }]);
  const run = s.goal!.start("long job");
  await new Promise((r) => setTimeout(r, 100));
  expect(s.goal!.pause().status).toBe("active");
  const final = await run;
  expect(final.status).toBe("paused");
  expect(final.pauseCode).toBe("user");
  expect(s.goal!.clear()!.status).toBe("cleared");
  expect(goalEvents(s.history()).map((e) => e.change)).toEqual(["started", "turn", "paused", "cleared"]);
});
