// The goal evaluator's model calls are session spend: usage records with role
// goal_evaluator (priced like the executor, in the session's total and cost),
// also when its answer is not a verdict. Real session over the scripted LLM.
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEngine } from "../../engine/index.ts";
import { makeSandbox, providerConfig, testTools } from "../../engine/tests/helpers.ts";
import type { EngineEvent } from "../../engine/types.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { completeStepTool, updateGoalTool } from "../tools.ts";
import { report } from "./helpers.ts";

const PRICES = { input: 1, cache_hit: 0.1, output: 2, currency: "USD" };

async function pricedRig(steps: Parameters<typeof startScriptedOpenAI>[0]) {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI(steps);
  writeFileSync(join(sb.home, ".env"), "SCRIPTED_KEY=sk-test-123\n", { mode: 0o600 });
  const tools = testTools();
  for (const t of [updateGoalTool, completeStepTool]) tools.register(t);
  const config = providerConfig(llm.url, { prices: PRICES });
  const engine = createEngine({ workspace: sb.workspace, home: sb.home, config, tools, retry: { baseDelayMs: 5, maxDelayMs: 20 }, permissionMode: "auto", mcp: false });
  const s = await engine.createSession();
  const events: EngineEvent[] = [];
  s.subscribe((e) => events.push(e));
  const records = () => readFileSync(join(sb.home, "sessions", `${s.id}.jsonl`), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const close = async () => {
    await engine.close();
    await llm.close();
    sb.cleanup();
  };
  return { s, llm, events, records, close };
}

test("the evaluator's usage is a goal_evaluator usage record, in the session's total and cost", async () => {
  const r = await pricedRig([
    { text: "looked around", usage: { input: 1_000_000, output: 100_000 } },
    { text: '{"status": "continue", "reason": "not done"}', usage: { input: 200_000, cacheHit: 100_000, output: 10_000 } },
    { toolCalls: [report("complete", "done")], usage: { input: 300_000, output: 20_000 } },
    { text: "finished", usage: { input: 400_000, output: 30_000 } },
  ]);
  try {
    const final = await r.s.goal!.start("look around");
    expect(final.status).toBe("complete");
    // The goal's own statistics: every request and token, the evaluator's included.
    expect(final.requests).toBe(4);
    expect(final.tokens).toBe(1_100_000 + 210_000 + 320_000 + 430_000);
    const usage = r.records().filter((x) => x.t === "usage");
    expect(usage.map((u) => u.role ?? "executor")).toEqual(["executor", "goal_evaluator", "executor", "executor"]);
    const ev = usage[1]!;
    expect(ev.usage).toMatchObject({ inputTokens: 200_000, cacheHitTokens: 100_000, outputTokens: 10_000 });
    // 100k uncached × 1 + 100k cached × 0.1 + 10k × 2 per million = 0.13.
    expect(ev.cost).toBeCloseTo(0.13, 9);
    expect(ev.currency).toBe("USD");
    expect(ev.turn).toBe(1);
    // The live usage event carries the role and the session's split by role.
    const live = r.events.filter((e): e is Extract<EngineEvent, { type: "usage" }> => e.type === "usage");
    expect(live[1]!.role).toBe("goal_evaluator");
    const last = live.at(-1)!;
    expect(last.byRole?.goal_evaluator).toEqual({ usage: expect.objectContaining({ inputTokens: 200_000, cacheHitTokens: 100_000, outputTokens: 10_000 }), cost: 0.13 });
    expect(last.total.inputTokens).toBe(1_900_000);
    expect(last.total.outputTokens).toBe(160_000);
    // Executor: 1.7M in × 1 + 150k out × 2 = 2.0; with the evaluator's 0.13.
    expect(last.cost!.total).toBeCloseTo(2.13, 9);
  } finally {
    await r.close();
  }
});

test("an evaluator answer that is not a verdict still counts: the goal pauses, the usage is recorded", async () => {
  const r = await pricedRig([
    { text: "did something", usage: { input: 1000, output: 100 } },
    { text: "I think it went well", usage: { input: 500, output: 40 } },
  ]);
  try {
    const final = await r.s.goal!.start("do something");
    expect(final.status).toBe("paused");
    expect(final.pauseCode).toBe("evaluator");
    expect(final.requests).toBe(2);
    expect(final.tokens).toBe(1640);
    const ev = r.records().filter((x) => x.t === "usage" && x.role === "goal_evaluator");
    expect(ev).toHaveLength(1);
    expect(ev[0]!.usage).toMatchObject({ inputTokens: 500, outputTokens: 40 });
    // 500 × 1 + 40 × 2 per million.
    expect(ev[0]!.cost).toBeCloseTo(0.00058, 12);
  } finally {
    await r.close();
  }
});
