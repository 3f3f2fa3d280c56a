// Goal start → the planner, through core/goal's goal-start hooks.
import { afterEach, expect, test } from "bun:test";
import { runGoalStartHooks } from "../../goal/hooks.ts";
import type { ScriptStep } from "../../testing/scripted-llm.ts";
import { setup, type Setup } from "./helpers.ts";
import "../setup.ts";

let cur: Setup | undefined;
afterEach(async () => {
  await cur?.close();
  cur = undefined;
});
const engineWith = async (planSteps: ScriptStep[], planner = true) => (cur = await setup([], planSteps, { planner }));

const PLAN = { summary: "Ship the goal.", steps: ["do it"], verified_touchpoints: [], candidate_touchpoints: [], non_goals: [], risks: [], acceptance_criteria: ["done"], verification_commands: ["true"] };

test("a goal start plans the objective: the plan is recorded and becomes the first goal turn's note", async () => {
  const { engine, plan } = await engineWith([{ toolCalls: [{ name: "submit_plan", arguments: PLAN }] }]);
  const s = await engine.createSession();
  const warnings: string[] = [];
  const note = await runGoalStartHooks({ objective: "make the tests pass", session: s, signal: new AbortController().signal }, (m) => warnings.push(m));
  expect(warnings).toEqual([]);
  expect(note).toMatch(/^<plan source="planner">\n## Plan\nShip the goal\./);
  expect(plan.chatRequests()[0]!.body.messages.at(-1).content).toMatch(/^<planner-turn route="goal">[\s\S]*make the tests pass/);
  expect(s.history().filter((e) => e.type === "plan").map((e) => (e as { route: string }).route)).toEqual(["goal"]);
});

test("a planner failure at goal start leaves the goal to the executor, with a warning", async () => {
  const { engine } = await engineWith([{ kind: "error", status: 400, message: "gone" }]);
  const s = await engine.createSession();
  const warnings: string[] = [];
  const note = await runGoalStartHooks({ objective: "x", session: s, signal: new AbortController().signal }, (m) => warnings.push(m));
  expect(note).toBeUndefined();
  expect(warnings.join("\n")).toMatch(/did not deliver a plan: .*gone/);
});

test("without [agent] planner_model a goal starts without a plan", async () => {
  const { engine, plan } = await engineWith([], false);
  const s = await engine.createSession();
  expect(await runGoalStartHooks({ objective: "x", session: s, signal: new AbortController().signal }, () => {})).toBeUndefined();
  expect(plan.chatRequests()).toHaveLength(0);
});
