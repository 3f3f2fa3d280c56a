import { describe, expect, test } from "bun:test";
import { detectPlanRoute } from "../detect.ts";

const table: [string, ReturnType<typeof detectPlanRoute>][] = [
  // plan first
  ["Plan first, then add a --verbose flag to the CLI", "plan_first"],
  ["add retries to the HTTP client; plan it out first", "plan_first"],
  ["First, make a plan for the migration", "plan_first"],
  ["write a plan and then implement it", "plan_first"],
  ["先规划一下再改登录逻辑", "plan_first"],
  // plan only
  ["plan only: how would we split session.ts?", "plan_only"],
  ["Refactor the parser, but don't execute anything", "plan_only"],
  ["just a plan for the cache layer please", "plan_only"],
  ["Give me the steps without making any changes", "plan_only"],
  ["重构配置加载，不要执行", "plan_only"],
  // wait for approval
  ["Plan the refactor and wait for my approval", "plan_approval"],
  ["make a plan, then pause until I approve it", "plan_approval"],
  ["Draft the change and ask me for approval before implementing", "plan_approval"],
  ["plan first, don't execute until I confirm", "plan_approval"],
  ["先规划，等我确认后再改", "plan_approval"],
  // ordinary requests stay with the executor
  ["fix the login bug", null],
  ["this is a complex refactor of the planner module", null],
  ["update the project plan document in docs/plan.md", null],
  ["plan first... actually, just do it", null],
  ["don't plan first, fix it right away", null],
  ["直接改", null],
  // quoted examples are ignored
  ['add a test that the detector ignores "plan first" in quotes', null],
  ["document the `plan only` keyword in the README", null],
  ["the phrase 'wait for my approval' should be translated", null],
  ["```\nplan first\n```\nexplain this snippet", null],
  ["> plan only\nwhat does this quoted line mean?", null],
  ["“plan first” is a trigger; describe it", null],
  // an apostrophe is not a quote
  ["I don't want changes yet — don't execute, just plan", "plan_only"],
];

describe("detectPlanRoute", () => {
  for (const [prompt, want] of table) {
    test(`${JSON.stringify(prompt)} → ${want}`, () => {
      expect(detectPlanRoute(prompt)).toBe(want);
    });
  }
});
