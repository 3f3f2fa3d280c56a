// The counters that have causes outside a turn's own events: /compact counts
// compaction.manual (the automatic one auto); a conversation continued in a
// new process counts recovery.resume, and each tool call a stopped process
// left unanswered recovery.interrupted_tool — once per session, whatever
// reopens it (a model switch); overlapping turns of two sessions each get
// their own latency.
import { afterEach, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { engineFor, isCompactionRequest, makeSandbox, providerConfig } from "../../engine/tests/helpers.ts";
import { SessionStore } from "../../sessions/store.ts";
import type { EngineSession } from "../../engine/types.ts";
import type { EngineEvent } from "../../protocol/events.ts";
import { UsageCounters } from "../counters.ts";
import { validatePayload } from "../schema.ts";
import { dayRecord } from "../session.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("compaction: /compact counts manual, the automatic one auto", async () => {
  const sb = makeSandbox();
  writeFileSync(join(sb.workspace, "big.txt"), `${"a".repeat(3000)}\n`);
  const llm = await startScriptedOpenAI([
    { text: "first" },
    { text: "second" },
    (req) => (isCompactionRequest(req) ? { text: "MANUAL-SUMMARY" } : { kind: "error", status: 400, message: "expected a compaction request" }),
    { toolCalls: [{ name: "read_file", arguments: { path: "big.txt" } }] },
    (req) => (isCompactionRequest(req) ? { text: "AUTO-SUMMARY" } : { kind: "error", status: 400, message: "expected a compaction request" }),
    { text: "done" },
  ]);
  const cfg = providerConfig(llm.url, { context_window: 2000 });
  (cfg.agent as Record<string, unknown>).compact_ratio = 0.6;
  const counters = new UsageCounters();
  const engine = engineFor(sb, llm.url, { config: cfg, onSessionOpen: (s) => void counters.follow(s) });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  expect(await s.submit("one")).toBe("done");
  expect(await s.submit("two")).toBe("done");
  expect(await s.compact!()).not.toBeNull();
  expect(counters.counts.compaction).toEqual({ manual: 1 });
  expect(await s.submit("read big.txt")).toBe("done");
  expect(counters.counts.compaction).toEqual({ manual: 1, auto: 1 });
});

test("a conversation continued after a crash: resume once, one interrupted_tool per unanswered call; a model switch or a new session adds none", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ text: "resumed fine" }, { text: "fresh" }]);
  const cfg = providerConfig(llm.url);
  (cfg.providers as Record<string, unknown>[]).push({ ...(cfg.providers as Record<string, unknown>[])[0]!, name: "other" });
  const opened: EngineSession[] = [];
  const counters = new UsageCounters();
  const engine = engineFor(sb, llm.url, { config: cfg, onSessionOpen: (s) => (opened.push(s), void counters.follow(s)) });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());

  // What a process killed mid-round leaves: two tool calls without results, no turn end.
  const store = new SessionStore(join(sb.home, "sessions"));
  const file = store.create({ workspace: sb.workspace, model: "scripted", createdAt: new Date().toISOString() });
  const at = new Date().toISOString();
  file.append({ t: "turn_start", turn: 1, prompt: "earlier", at });
  file.append({ t: "msg", turn: 1, msg: { role: "user", content: "earlier" } });
  file.append({ t: "msg", turn: 1, msg: { role: "assistant", content: "answer" } });
  file.append({ t: "turn_end", turn: 1, reason: "done", at });
  file.append({ t: "turn_start", turn: 2, prompt: "do it", at });
  file.append({ t: "msg", turn: 2, msg: { role: "user", content: "do it" } });
  const calls = [{ id: "c1", name: "read_file", arguments: '{"path":"a"}' }, { id: "c2", name: "read_file", arguments: '{"path":"b"}' }];
  file.append({ t: "msg", turn: 2, msg: { role: "assistant", content: "", toolCalls: calls } });
  file.close();
  appendFileSync(join(sb.home, "sessions", `${file.id}.jsonl`), '{"t":"msg","turn":2,"msg":{"role":"tool","callId":"c1"');

  const s = await engine.resumeSession(file.id);
  expect(opened).toEqual([s]);
  expect(s.recovered).toEqual({ interruptedTools: 2 });
  expect(counters.counts.recovery).toEqual({ resume: 1, interrupted_tool: 2 });
  expect(await s.submit("continue")).toBe("done");

  // The same conversation reopened on another model: already counted.
  await s.close();
  const again = await engine.resumeSession(file.id, { model: "other" });
  expect(opened).toHaveLength(2);
  expect(again.recovered).toEqual({ interruptedTools: 0 });
  // A new conversation: nothing to recover.
  const fresh = await engine.createSession();
  expect(await fresh.submit("hello")).toBe("done");
  expect(opened).toHaveLength(3);
  expect(counters.counts.recovery).toEqual({ resume: 1, interrupted_tool: 2 });
  expect(counters.counts.finish_reason).toEqual({ stop: 2 });

  // Whatever was counted stays inside the allow-list.
  expect(validatePayload(dayRecord("0123456789abcdef0123456789abcdef", "serve", counters.counts))).toEqual([]);
});

test("followed sessions keep their own turn clocks: overlapping turns each count their latency", () => {
  let now = 0;
  const counters = new UsageCounters(() => now);
  const listeners: ((e: EngineEvent) => void)[] = [];
  const fake = (id: string) => ({ id, history: () => [], subscribe: (l: (e: EngineEvent) => void) => (listeners.push(l), () => {}) });
  counters.follow(fake("a"));
  counters.follow(fake("b"));
  const [a, b] = listeners;
  a!({ type: "turn_start", turn: 1, prompt: "x" } as EngineEvent);
  now = 19_000;
  b!({ type: "turn_start", turn: 1, prompt: "y" } as EngineEvent);
  now = 19_500;
  b!({ type: "turn_end", turn: 1, reason: "done" } as EngineEvent);
  now = 20_000;
  a!({ type: "turn_end", turn: 1, reason: "done" } as EngineEvent);
  expect(counters.counts.turn_latency).toEqual({ lt1s: 1, "15to60s": 1 });
});
