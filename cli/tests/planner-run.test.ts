// `reasonix run` with a planner: the plan shows in the text output.
import { afterEach, expect, test } from "bun:test";
import { appendFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptStep } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli } from "./run-helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PLAN = { summary: "Add hello.txt.", steps: ["write hello.txt"], verified_touchpoints: [], candidate_touchpoints: ["hello.txt"], non_goals: [], risks: [], acceptance_criteria: ["hello.txt exists"], verification_commands: ["test -f hello.txt"] };

async function setup(execSteps: ScriptStep[], planSteps: ScriptStep[]) {
  const exec = await startScriptedOpenAI(execSteps);
  const plan = await startScriptedOpenAI(planSteps);
  const ce = makeCliEnv(exec.url);
  appendFileSync(join(ce.home, "config.toml"), ["[[providers]]", 'name = "planner"', 'kind = "openai"', `base_url = "${plan.url}"`, 'model = "plan-model"', 'api_key_env = "SCRIPTED_KEY"', "[agent]", 'planner_model = "planner"', ""].join("\n"));
  cleanups.push(() => exec.close(), () => plan.close(), () => ce.cleanup());
  return { exec, plan, ce };
}

test("plan only: the plan is the answer on stdout, nothing runs, exit 0", async () => {
  const { exec, ce } = await setup([], [{ toolCalls: [{ name: "submit_plan", arguments: PLAN }] }]);
  const r = await runCli(ce, ["run", "--auto", "plan only: add hello.txt"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("## Plan\nAdd hello.txt.");
  expect(r.stdout).toContain("`test -f hello.txt`");
  expect(exec.chatRequests()).toHaveLength(0);
  expect(existsSync(join(ce.workspace, "hello.txt"))).toBe(false);
});

test("plan first: the plan is shown on stderr, then the executor works", async () => {
  const { ce } = await setup(
    [{ toolCalls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hi" } }] }, { text: "Added hello.txt." }],
    [{ toolCalls: [{ name: "submit_plan", arguments: PLAN }] }],
  );
  const r = await runCli(ce, ["run", "--auto", "plan first, then add hello.txt"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("plan from the planner (plan first):");
  expect(r.stderr).toContain("1. write hello.txt");
  expect(r.stdout).toContain("Added hello.txt.");
  expect(existsSync(join(ce.workspace, "hello.txt"))).toBe(true);
});
