// Rate cards and cost receipts: arithmetic against the embedded card
// (cached vs uncached), dated generations, entry `prices` overriding, and the
// spend a session records (engine over real HTTP, `sessions show --cost`).
import { afterEach, describe, expect, test } from "bun:test";
import { engineFor, makeSandbox } from "../../engine/tests/helpers.ts";
import { costReport, formatCostReport } from "../../sessions/cost.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import { createProvider } from "../index.ts";
import { priceOf, pricesFor, rateCard, savedBy } from "../pricing.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("rate card", () => {
  test("DeepSeek: dated generations, oldest first; the newest not after the date applies", () => {
    const old = rateCard("https://api.deepseek.com", "deepseek-chat", "2025-03-01T00:00:00Z")!;
    expect([old.input, old.cacheHit, old.output]).toEqual([0.27, 0.07, 1.1]);
    const now = rateCard("https://api.deepseek.com/v1", "deepseek-chat", "2026-01-01T00:00:00Z")!;
    expect([now.input, now.cacheHit, now.output]).toEqual([0.28, 0.028, 0.42]);
    expect(now.source).toBe("rate card deepseek/deepseek-chat from 2025-09-29");
  });

  test("cost of 1M input (800k cached) and 100k output, and what the cache saved", () => {
    const p = rateCard("https://api.deepseek.com", "deepseek-chat", "2026-01-01")!;
    const u = { inputTokens: 1_000_000, cacheHitTokens: 800_000, outputTokens: 100_000 };
    // 200k uncached × 0.28 + 800k cached × 0.028 + 100k × 0.42, per million.
    expect(priceOf(u, p)).toBeCloseTo(0.056 + 0.0224 + 0.042, 10);
    expect(savedBy(u, p)).toBeCloseTo(0.8 * (0.28 - 0.028), 10);
    // Uncached: everything at the input price, nothing saved.
    expect(priceOf({ ...u, cacheHitTokens: 0 }, p)).toBeCloseTo(0.28 + 0.042, 10);
    expect(savedBy({ ...u, cacheHitTokens: 0 }, p)).toBe(0);
  });

  test("Anthropic cache writes cost 1.25× input (5-minute cache): on the card, in the cost, and against what the cache saved", async () => {
    const { default: card } = await import("../rates.json", { with: { type: "json" } });
    const anthropic = (card as any).vendors.anthropic.models as Record<string, { input: number; cache_write?: number }[]>;
    for (const [model, gens] of Object.entries(anthropic)) for (const g of gens) expect([model, g.cache_write]).toEqual([model, g.input * 1.25]);
    const p = rateCard("https://api.anthropic.com", "claude-sonnet-4-5")!;
    expect([p.input, p.cacheHit, p.cacheWrite]).toEqual([3, 0.3, 3.75]);
    // 10k input of which 8k written to the cache: 2k × 3 + 8k × 3.75 + 100 out × 15.
    const u = { inputTokens: 10_000, cacheHitTokens: 0, cacheWriteTokens: 8_000, outputTokens: 100 };
    expect(priceOf(u, p)).toBeCloseTo((2_000 * 3 + 8_000 * 3.75 + 100 * 15) / 1e6, 12);
    // Writing the cache costs 0.75/M more than plain input: the saving is net of it.
    expect(savedBy(u, p)).toBeCloseTo((-8_000 * 0.75) / 1e6, 12);
    expect(savedBy({ ...u, inputTokens: 18_000, cacheHitTokens: 8_000 }, p)).toBeCloseTo((8_000 * 2.7 - 8_000 * 0.75) / 1e6, 12);
    // Vendors that do not charge for writes: none on the card, writes at the input price.
    const ds = rateCard("https://api.deepseek.com", "deepseek-chat", "2026-01-01")!;
    expect(ds.cacheWrite).toBeUndefined();
    expect(priceOf({ ...u }, ds)).toBeCloseTo((10_000 * 0.28 + 100 * 0.42) / 1e6, 12);
    // An entry's prices may name it too.
    expect(pricesFor({ name: "a", kind: "anthropic", prices: { input: 3, output: 15, cache_hit: 0.3, cache_write: 3.75 } }, "x")).toMatchObject({ cacheWrite: 3.75 });
  });

  test("prefix model keys; unknown hosts and models have no price (gateways are never guessed)", () => {
    expect(rateCard("https://api.anthropic.com", "claude-sonnet-4-5")?.input).toBe(3);
    expect(rateCard("https://openrouter.ai/api/v1", "deepseek-chat")).toBeUndefined();
    expect(rateCard("https://api.deepseek.com.evil.test", "deepseek-chat")).toBeUndefined();
    expect(rateCard("https://api.openai.com/v1", "no-such-model")).toBeUndefined();
  });

  test("Opus 4.5 and later are priced apart from Opus 4/4.1 (the more specific key wins)", () => {
    expect(rateCard("https://api.anthropic.com", "claude-opus-4-5-20251101")).toMatchObject({ input: 5, cacheHit: 0.5, output: 25 });
    expect(rateCard("https://api.anthropic.com", "claude-opus-4-6")?.input).toBe(5);
    expect(rateCard("https://api.anthropic.com", "claude-opus-4-1-20250805")).toMatchObject({ input: 15, cacheHit: 1.5, output: 75 });
    expect(rateCard("https://api.anthropic.com", "claude-opus-4-20250514")?.input).toBe(15);
  });

  test("every generation names its source and check date, or is marked unverified with a date", async () => {
    const { default: card } = await import("../rates.json", { with: { type: "json" } });
    const gens = Object.values((card as { vendors: Record<string, { models: Record<string, Record<string, unknown>[]> }> }).vendors).flatMap((v) => Object.values(v.models).flat());
    expect(gens.length).toBeGreaterThan(10);
    for (const g of gens) {
      const verified = typeof g.source === "string" && /^https:\/\//.test(g.source) && /^\d{4}-\d\d-\d\d$/.test(String(g.checked));
      const unverified = /^\d{4}-\d\d-\d\d$/.test(String(g.unverified));
      expect({ g, marked: verified !== unverified }).toEqual({ g, marked: true });
    }
  });

  test("an entry's prices override the card", () => {
    const p = pricesFor({ name: "d", kind: "openai", base_url: "https://api.deepseek.com", prices: { input: 1, output: 2 } }, "deepseek-chat")!;
    expect(p).toEqual({ input: 1, output: 2, cacheHit: 1, currency: "USD", source: "config" });
    const card = createProvider({ name: "d", kind: "openai", base_url: "https://api.deepseek.com", model: "deepseek-chat" }, { secret: () => undefined });
    expect(card.prices?.source).toMatch(/^rate card deepseek\//);
  });
});

test("a session records spend per turn with cache savings; sessions show --cost adds it up", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([
    { text: "one", usage: { input: 2000, cacheHit: 0, output: 100 } },
    { text: "two", usage: { input: 3000, cacheHit: 2000, output: 200 } },
  ]);
  const engine = engineFor(sb, llm.url, { providerExtra: { prices: { input: 2, cache_hit: 0.5, output: 10, currency: "USD" } } });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  await s.submit("a");
  await s.submit("b");
  const report = costReport(s.history());
  // turn 1: 2000×2 + 100×10 = 5000 µ$; turn 2: 1000×2 + 2000×0.5 + 200×10 = 5000 µ$.
  expect(report.turns.map((t) => t.cost)).toEqual([0.005, 0.005]);
  expect(report.cost).toBeCloseTo(0.01, 10);
  expect(report.saved).toBeCloseTo((2000 * 1.5) / 1e6, 10);
  const text = formatCostReport(report);
  expect(text).toContain("turn 2: 3000 in (2000 cached), 200 out, 0.0050 USD");
  expect(text).toContain("session: 5000 in (40% cached), 300 out, 0.0100 USD, cache saved 0.0030 USD");
});

test("Anthropic: cache writes and input reported only on message_delta are counted and priced (engine over the scripted Anthropic server)", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedAnthropic([
    { text: "one", usage: { input: 10_000, cacheWrite: 8_000, output: 100 } },
    // An endpoint that reports input only on message_delta (cumulative usage).
    { text: "two", usage: { input: 10_500, cacheHit: 8_000, cacheWrite: 500, output: 100 }, anthropicUsageIn: "delta" },
  ]);
  const engine = engineFor(sb, llm.url, { providerExtra: { kind: "anthropic", prices: { input: 3, cache_hit: 0.3, cache_write: 3.75, output: 15, currency: "USD" } } });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  await s.submit("a");
  await s.submit("b");
  const report = costReport(s.history());
  expect(report.turns.map((t) => [t.inputTokens, t.cacheHitTokens])).toEqual([[10_000, 0], [10_500, 8_000]]);
  // turn 1: 2000×3 + 8000×3.75 + 100×15; turn 2: 2000×3 + 8000×0.3 + 500×3.75 + 100×15 (µ$).
  expect(report.turns.map((t) => t.cost)).toEqual([0.0375, 0.011775]);
  // Hits saved 8000×2.7, the writes cost 8500×0.75 more than plain input.
  expect(report.saved).toBeCloseTo((8_000 * 2.7 - 8_500 * 0.75) / 1e6, 10);
  expect(formatCostReport(report)).toContain("cache saved 0.0152 USD");
  // While the writes have cost more than reads saved, that is said as such, not as a negative saving.
  expect(formatCostReport({ ...report, saved: -0.006 })).toContain("cache writes cost 0.0060 USD more than they saved so far");
});
