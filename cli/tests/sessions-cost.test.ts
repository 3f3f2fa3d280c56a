// `reasonix run` prints the cost receipt with cache savings; `reasonix
// sessions show ID --cost` adds up the spend (real CLI, scripted server).
import { afterEach, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

let llm: ScriptedServer | undefined;
let ce: CliEnv | undefined;
afterEach(async () => {
  await llm?.close();
  ce?.cleanup();
});

test("run receipt and sessions show --cost (text and --json)", async () => {
  llm = await startScriptedOpenAI([{ text: "priced", usage: { input: 1_000_000, cacheHit: 800_000, output: 100_000 } }]);
  ce = makeCliEnv(llm.url, { extraToml: 'prices = { input = 0.28, cache_hit = 0.028, output = 0.42, currency = "USD" }' });
  const run = await runCli(ce, ["run", "price this"]);
  expect(run.code).toBe(0);
  // 200k × 0.28 + 800k × 0.028 + 100k × 0.42 = 0.1204; the cache saved 800k × 0.252 = 0.2016.
  expect(run.stderr).toContain("cost 0.1204 USD (session 0.1204, cache saved 0.2016)");
  const id = /session (\d{8}-\d{6}-[0-9a-f]+)/.exec(run.stderr)![1]!;
  const text = await runCli(ce, ["sessions", "show", id, "--cost"]);
  expect(text.code).toBe(0);
  expect(text.stdout).toBe("turn 1: 1000000 in (800000 cached), 100000 out, 0.1204 USD\nsession: 1000000 in (80% cached), 100000 out, 0.1204 USD, cache saved 0.2016 USD\n");
  const json = JSON.parse((await runCli(ce, ["sessions", "show", id, "--cost", "--json"])).stdout);
  expect(json).toMatchObject({ id, cost: 0.1204, saved: 0.2016, currency: "USD", turns: [{ turn: 1, cost: 0.1204 }] });
});

test("the planner's spend joins the session's: run receipt, sessions show --cost (text and --json) break it out", async () => {
  const plan = await startScriptedOpenAI([
    { toolCalls: [{ name: "submit_plan", arguments: { summary: "Say hi.", steps: ["answer"], verified_touchpoints: [], candidate_touchpoints: [], non_goals: [], risks: [], acceptance_criteria: ["hi"], verification_commands: ["true"] } }], usage: { input: 400_000, cacheHit: 0, output: 50_000 } },
  ]);
  llm = await startScriptedOpenAI([{ text: "hi", usage: { input: 1_000_000, cacheHit: 800_000, output: 100_000 } }]);
  ce = makeCliEnv(llm.url, { extraToml: 'prices = { input = 0.28, cache_hit = 0.028, output = 0.42, currency = "USD" }' });
  appendFileSync(
    join(ce.home, "config.toml"),
    ["[[providers]]", 'name = "planner"', 'kind = "openai"', `base_url = "${plan.url}"`, 'model = "plan-model"', 'api_key_env = "SCRIPTED_KEY"', 'prices = { input = 1, output = 2, currency = "USD" }', "[agent]", 'planner_model = "planner"', ""].join("\n"),
  );
  try {
    const run = await runCli(ce, ["run", "plan first, then say hi"]);
    expect(run.code).toBe(0);
    // Executor 0.1204; planner 400k × 1 + 50k × 2 = 0.5.
    expect(run.stderr).toContain("cost 0.6204 USD (session 0.6204, cache saved 0.2016)");
    expect(run.stderr).toContain("planner 450000 tokens, 0.5000 USD");
    const id = /session (\d{8}-\d{6}-[0-9a-f]+)/.exec(run.stderr)![1]!;
    const text = await runCli(ce, ["sessions", "show", id, "--cost"]);
    expect(text.stdout).toBe(
      "turn 1: 1400000 in (800000 cached), 150000 out, 0.6204 USD\n" +
        "session: 1400000 in (57% cached), 150000 out, 0.6204 USD, cache saved 0.2016 USD\n" +
        "  of which planner: 400000 in (0 cached), 50000 out, 0.5000 USD\n",
    );
    const json = JSON.parse((await runCli(ce, ["sessions", "show", id, "--cost", "--json"])).stdout);
    expect(json).toMatchObject({ id, cost: 0.6204, total: { inputTokens: 1_400_000, outputTokens: 150_000 }, byRole: { planner: { usage: { inputTokens: 400_000, cacheHitTokens: 0, outputTokens: 50_000 }, cost: 0.5 } } });
  } finally {
    await plan.close();
  }
});
