// Goal mode's bounds in config: defaults, and what an untrusted project file may set
// (tighten only: fewer turns, a budget, a shorter evaluator deadline).
import { expect, test } from "bun:test";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { goalSettings } from "../config.ts";

function load(user: string, project: string) {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "rx-goal-home-")));
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "rx-goal-ws-")));
  writeFileSync(join(home, "config.toml"), user);
  writeFileSync(join(ws, "reasonix.toml"), project);
  return loadConfig({ home, cwd: ws });
}

test("defaults: 100 turns per slice, no token budget, a 60 s evaluator deadline", () => {
  expect(goalSettings({})).toEqual({ maxTurns: 100, tokenBudget: 0, evaluatorTimeoutMs: 60000, stallRounds: 8 });
  expect(goalSettings({ agent: { goal_max_turns: 0, goal_token_budget: 5000, goal_evaluator_timeout_seconds: 2.5 } })).toMatchObject({ maxTurns: 0, tokenBudget: 5000, evaluatorTimeoutMs: 2500 });
});

test("an untrusted project may tighten the goal bounds", () => {
  const c = load("", "[agent]\ngoal_max_turns = 10\ngoal_token_budget = 50000\ngoal_evaluator_timeout_seconds = 20\n");
  expect(c.trust.ignored).toEqual([]);
  expect(goalSettings(c.values)).toMatchObject({ maxTurns: 10, tokenBudget: 50000, evaluatorTimeoutMs: 20000 });
});

test("an untrusted project may not loosen them: no turn limit, no budget, more turns, a longer deadline", () => {
  const c = load("[agent]\ngoal_max_turns = 20\ngoal_token_budget = 100000\n", "[agent]\ngoal_max_turns = 0\ngoal_token_budget = 0\ngoal_evaluator_timeout_seconds = 600\n");
  expect(c.trust.ignored.map((i) => i.key).sort()).toEqual(["agent.goal_evaluator_timeout_seconds", "agent.goal_max_turns", "agent.goal_token_budget"]);
  expect(goalSettings(c.values)).toMatchObject({ maxTurns: 20, tokenBudget: 100000, evaluatorTimeoutMs: 60000 });
  // Without a user value the default is the ceiling.
  const d = load("", "[agent]\ngoal_max_turns = 500\n");
  expect(d.trust.ignored.map((i) => i.key)).toEqual(["agent.goal_max_turns"]);
  expect(goalSettings(d.values).maxTurns).toBe(100);
});
