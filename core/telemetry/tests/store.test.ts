// The local side of usage counters: the choice file and queue are 0600 in a
// 0700 directory, the queue is bounded and merges a day's counts, a record
// outside the allow-list never leaves (dropped on reading), "no" drops the
// queue, and events reduce to buckets only.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageCounters, cacheBucket, latencyBucket, providerErrorClass } from "../counters.ts";
import { pendingPayloads } from "../send.ts";
import { dayRecord } from "../session.ts";
import { MAX_QUEUE, addToQueue, readQueue, readState, saveChoice, telemetryDir } from "../store.ts";

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });
const home = () => { const h = mkdtempSync(join(tmpdir(), "rx-telemetry-")); roots.push(h); return h; };

test("the choice keeps one random install id; files are 0600 in a 0700 directory; no drops the queue", () => {
  const h = home();
  const yes = saveChoice(h, "yes");
  expect(yes.install_id).toMatch(/^[0-9a-f]{32}$/);
  expect(statSync(telemetryDir(h)).mode & 0o777).toBe(0o700);
  expect(statSync(join(telemetryDir(h), "choice.json")).mode & 0o777).toBe(0o600);
  addToQueue(h, dayRecord(yes.install_id, "chat", { finish_reason: { stop: 1 } })!);
  expect(statSync(join(telemetryDir(h), "queue.json")).mode & 0o777).toBe(0o600);
  const no = saveChoice(h, "no");
  expect(no.install_id).toBe(yes.install_id);
  expect(readQueue(h)).toEqual([]);
  expect(readState(h)?.choice).toBe("no");
});

test("a day's counts merge; at most MAX_QUEUE day records are kept, the oldest dropped", () => {
  const h = home();
  const id = saveChoice(h, "yes").install_id;
  const rec = (day: string, n: number) => ({ ...dayRecord(id, "run", { finish_reason: { stop: n } })!, day });
  addToQueue(h, rec("2026-01-01", 2));
  addToQueue(h, rec("2026-01-01", 3));
  expect(readQueue(h)).toHaveLength(1);
  expect(readQueue(h)[0]!.counters.finish_reason?.stop).toBe(5);
  for (let d = 2; d <= 30; d++) addToQueue(h, rec(`2026-01-${String(d).padStart(2, "0")}`, 1));
  const q = readQueue(h);
  expect(q).toHaveLength(MAX_QUEUE);
  expect(q[0]!.day).toBe("2026-01-17");
});

test("a queued record with any field outside the allow-list is never sent", () => {
  const h = home();
  const id = saveChoice(h, "yes").install_id;
  const good = dayRecord(id, "chat", { cache_hit: { "76to100": 1 } })!;
  writeFileSync(join(telemetryDir(h), "queue.json"), JSON.stringify([good, { ...good, cwd: "/home/alice/p" }, { ...good, counters: { tools: { bash: 1 } } }]));
  expect(pendingPayloads(h)).toEqual([good]);
  expect(readFileSync(join(telemetryDir(h), "queue.json"), "utf8")).toContain("alice"); // kept on disk, but never sent
});

test("events become buckets; nothing of their text is kept", () => {
  let t = 0;
  const c = new UsageCounters(() => t);
  c.observe({ type: "turn_start", sessionId: "s-secret", turn: 1, prompt: "fix /home/alice/app.ts" });
  c.observe({ type: "retry", attempt: 1, delayMs: 100, reason: "HTTP 429 Too Many Requests from api.example.com" });
  c.observe({ type: "tool_result", callId: "c", name: "bash", ok: false, output: "command timed out after 60 s" });
  c.observe({ type: "usage", turn: { inputTokens: 1, outputTokens: 1, cacheHitTokens: 1 }, total: { inputTokens: 1, outputTokens: 1, cacheHitTokens: 1 }, cacheHitPercent: 80 });
  t = 7000;
  c.observe({ type: "turn_end", turn: 1, reason: "done" });
  expect(c.counts).toEqual({
    recovery: { retry: 1 }, provider_error: { rate_limit: 1 }, tool_error: { timeout: 1 }, cache_hit: { "76to100": 1 },
    turn_latency: { "5to15s": 1 }, finish_reason: { stop: 1 },
  });
  expect([latencyBucket(999), latencyBucket(61_000), cacheBucket(0), cacheBucket(25), cacheBucket(26)]).toEqual(["lt1s", "gt60s", "0", "1to25", "26to50"]);
  expect(providerErrorClass("ECONNREFUSED 127.0.0.1:443")).toBe("network");
});
