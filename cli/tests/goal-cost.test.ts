// `reasonix run --goal` then `reasonix sessions show --cost`: the goal
// evaluator's spend is in the session's total and broken out by role (real
// CLI, scripted server).
import { afterEach, expect, test } from "bun:test";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

let llm: ScriptedServer | undefined;
let ce: CliEnv | undefined;
afterEach(async () => {
  await llm?.close();
  ce?.cleanup();
});

test("run --goal: the evaluator's usage is in the receipt and in sessions show --cost as goal_evaluator", async () => {
  llm = await startScriptedOpenAI([
    { text: "looked", usage: { input: 1_000_000, output: 100_000 } },
    { text: '{"status": "complete", "reason": "the look is done"}', usage: { input: 200_000, cacheHit: 100_000, output: 10_000 } },
  ]);
  ce = makeCliEnv(llm.url, { extraToml: 'prices = { input = 1, cache_hit = 0.1, output = 2, currency = "USD" }' });
  const run = await runCli(ce, ["run", "--goal", "look around"]);
  expect(run.code).toBe(0);
  // Executor 1M × 1 + 100k × 2 = 1.2; evaluator 100k × 1 + 100k × 0.1 + 10k × 2 = 0.13.
  expect(run.stderr).toContain("goal_evaluator 210000 tokens, 0.1300 USD");
  const id = /session (\d{8}-\d{6}-[0-9a-f]+)/.exec(run.stderr)![1]!;
  const text = await runCli(ce, ["sessions", "show", id, "--cost"]);
  expect(text.code).toBe(0);
  expect(text.stdout).toBe(
    "turn 1: 1200000 in (100000 cached), 110000 out, 1.3300 USD\n" +
      "session: 1200000 in (8% cached), 110000 out, 1.3300 USD, cache saved 0.0900 USD\n" +
      "  of which goal_evaluator: 200000 in (100000 cached), 10000 out, 0.1300 USD\n",
  );
  const json = JSON.parse((await runCli(ce, ["sessions", "show", id, "--cost", "--json"])).stdout);
  expect(json).toMatchObject({ id, cost: 1.33, total: { inputTokens: 1_200_000, outputTokens: 110_000 }, byRole: { goal_evaluator: { usage: { inputTokens: 200_000, cacheHitTokens: 100_000, outputTokens: 10_000 }, cost: 0.13 } } });
});
