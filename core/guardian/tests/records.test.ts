// The Guardian's verdicts and spend are session records: every review is a
// `guardian` record (replayed by history()), and the reviewer's tokens are
// usage records with role "guardian", counted in the session's totals, cost
// and `sessions show --cost`.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent } from "../../engine/types.ts";
import { costReport, formatCostReport } from "../../sessions/cost.ts";
import { answering, bashCall, startPair, verdict, type Pair } from "./helpers.ts";

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

type Ev<T extends EngineEvent["type"]> = Extract<EngineEvent, { type: T }>;
const of = <T extends EngineEvent["type"]>(evs: EngineEvent[], type: T) => evs.filter((e): e is Ev<T> => e.type === type);
const withUsage = <S extends object>(step: S, input: number, cacheHit: number, output: number) => ({ ...step, usage: { input, cacheHit, output } });

describe("Guardian records", () => {
  test("each verdict is recorded with call id, risk, authorization, outcome and reason; history() replays them after a resume", async () => {
    pair = await startPair(
      [bashCall("touch a.txt"), bashCall("rm -rf keep"), { text: "made a.txt, kept keep" }],
      [verdict("low", "high", "creates the file asked for"), verdict("critical", "unknown", "deletes data nobody mentioned")],
    );
    mkdirSync(join(pair.sb.workspace, "keep"));
    const s = await pair.engine.createSession();
    const evs = answering(s);
    expect(await s.submit("make a.txt")).toBe("done");
    const calls = of(evs, "tool_call");
    const live = of(evs, "guardian");
    expect(live).toEqual([
      { type: "guardian", callId: calls[0]!.callId, name: "bash", summary: "bash: touch a.txt", outcome: "allow", risk: "low", authorization: "high", reason: "creates the file asked for" },
      { type: "guardian", callId: calls[1]!.callId, name: "bash", summary: "bash: rm -rf keep", outcome: "deny", risk: "critical", authorization: "unknown", reason: "deletes data nobody mentioned" },
    ]);
    // Each verdict comes before the call's result.
    expect(evs.indexOf(live[1]!)).toBeLessThan(evs.findIndex((e) => e.type === "tool_result" && e.callId === calls[1]!.callId));
    const id = s.id;
    await s.close();
    const again = await pair.engine.resumeSession(id);
    expect(of(again.history(), "guardian")).toEqual(live);
  });

  test("a Guardian that gives no verdict is recorded as unavailable (headless: denied)", async () => {
    pair = await startPair([bashCall("touch x.txt"), { text: "unused" }], [{ text: "I think it is fine" }]);
    const s = await pair.engine.createSession();
    const evs = answering(s);
    expect(await s.submit("make x")).toBe("denied");
    const [g] = of(evs, "guardian");
    expect(g).toMatchObject({ outcome: "deny", unavailable: true, name: "bash" });
    expect(g!.risk).toBeUndefined();
    expect(g!.reason.length).toBeGreaterThan(0);
  });

  test("an interactive high-risk review is recorded as ask", async () => {
    pair = await startPair([bashCall("rm -rf keep"), { text: "ok" }], [verdict("high", "low", "deletes a directory")], { headless: false });
    mkdirSync(join(pair.sb.workspace, "keep"));
    const s = await pair.engine.createSession();
    const evs = answering(s, ["deny"]);
    await s.submit("clean up");
    expect(of(evs, "guardian").map((g) => [g.outcome, g.risk, g.authorization])).toEqual([["ask", "high", "low"]]);
  });

  test("the reviewer's tokens and cost join the session's usage, attributed to the guardian", async () => {
    pair = await startPair(
      [withUsage(bashCall("touch a.txt"), 1000, 0, 50), withUsage(bashCall("touch b.txt"), 1200, 1000, 40), withUsage({ text: "done" }, 1400, 1200, 30)],
      [withUsage(verdict("low", "high", "fine"), 500, 0, 20), withUsage(verdict("medium", "high", "fine too"), 600, 400, 25)],
      // Per million tokens: the reviewer is priced apart from the executor.
      { prices: { exec: { input: 2, cache_hit: 0.5, output: 10, currency: "USD" }, guard: { input: 1, cache_hit: 0.1, output: 4, currency: "USD" } } },
    );
    const s = await pair.engine.createSession();
    const evs = answering(s);
    expect(await s.submit("make two files")).toBe("done");
    const usage = of(evs, "usage");
    expect(usage.map((u) => u.role ?? "executor")).toEqual(["executor", "guardian", "executor", "guardian", "executor"]);
    const last = usage.at(-1)!;
    expect(last.total).toEqual({ inputTokens: 1000 + 1200 + 1400 + 500 + 600, cacheHitTokens: 1000 + 1200 + 400, outputTokens: 50 + 40 + 30 + 20 + 25 });
    // Executor: (1000×2 + 50×10) + (200×2 + 1000×0.5 + 40×10) + (200×2 + 1200×0.5 + 30×10) = 5100 µ$.
    // Guardian: (500×1 + 20×4) + (200×1 + 400×0.1 + 25×4) = 920 µ$.
    expect(last.byRole?.guardian).toEqual({ usage: { inputTokens: 1100, cacheHitTokens: 400, outputTokens: 45 }, cost: 0.00092 });
    expect(last.cost?.total).toBeCloseTo(0.0051 + 0.00092, 10);
    expect(last.cost?.turn).toBeCloseTo(0.0051 + 0.00092, 10);
    // The replayed history carries the same totals; the cost report shows the guardian's share.
    const report = costReport(s.history());
    expect(report.total).toEqual(last.total);
    expect(report.cost).toBeCloseTo(0.00602, 10);
    expect(report.byRole?.guardian?.cost).toBe(0.00092);
    expect(formatCostReport(report)).toContain("  of which guardian: 1100 in (400 cached), 45 out, 0.0009 USD");
  });
});
