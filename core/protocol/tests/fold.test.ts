// The transcript fold (core/protocol/fold.ts): event sequences → the folded
// transcript, one row per rule every front end relies on.
import { expect, test } from "bun:test";
import type { EngineEvent } from "../events.ts";
import { emptyTranscript, fold, foldTranscript } from "../fold.ts";
import { brief } from "./brief.ts";

const start: EngineEvent = { type: "turn_start", sessionId: "s", turn: 1, prompt: "hi" };
const done: EngineEvent = { type: "turn_end", turn: 1, reason: "done" };
const text = (t: string): EngineEvent => ({ type: "text_delta", text: t });
const think = (t: string): EngineEvent => ({ type: "reasoning_delta", text: t });
const said = (t: string, reasoning?: string): EngineEvent => ({ type: "assistant", text: t, ...(reasoning ? { reasoning } : {}) });
const discarded = (reason = "reset"): EngineEvent => ({ type: "attempt_discarded", attempt: 1, reason });
const call = (id: string, name = "read_file"): EngineEvent => ({ type: "tool_call", callId: id, name, input: { path: `${id}.txt` } });
const result = (id: string, ok = true, name = "read_file"): EngineEvent => ({ type: "tool_result", callId: id, name, ok, output: ok ? `${id} read` : `${id} failed` });

const TABLE: [string, EngineEvent[], string[]][] = [
  ["streamed deltas, then the assistant event commits one answer", [start, think("hm"), text("Hel"), text("lo"), said("Hello"), done], ["prompt 1: hi", 'answer: "Hello" ∴ "hm"', "end 1 done"]],
  ["the committed text replaces what was streamed", [start, text("draft"), said("final"), done], ["prompt 1: hi", 'answer: "final"', "end 1 done"]],
  ["a discarded attempt's text and reasoning are dropped; the retry's answer stands", [start, think("x"), text("broken half"), discarded(), { type: "retry", attempt: 1, delayMs: 1000, reason: "reset" }, text("whole"), said("whole"), done], ["prompt 1: hi", "notice retry", 'answer: "whole"', "end 1 done"]],
  ["a bare retry (older engine) drops the attempt too", [start, text("half"), { type: "retry", attempt: 1, delayMs: 10, reason: "reset" }, text("good"), said("good"), done], ["prompt 1: hi", "notice retry", 'answer: "good"', "end 1 done"]],
  ["a discarded attempt split by a notice loses all it streamed", [start, text("first"), { type: "waiting", phase: "idle", seconds: 1, timeoutSeconds: 2, setting: "idle_timeout_seconds" }, text(" second"), discarded("stalled"), text("good"), said("good"), done], ["prompt 1: hi", "notice waiting", 'answer: "good"', "end 1 done"]],
  ["a cancelled step: deltas dropped, the committed partial text stays", [start, text("partial an"), discarded("cancelled"), said("partial an"), { type: "turn_end", turn: 1, reason: "cancelled" }], ["prompt 1: hi", 'answer: "partial an"', "end 1 cancelled"]],
  ["a continuation joins the answer: one block, not one per step", [start, text("one "), said("one "), { type: "continuation", reason: "length" }, text("two"), said("two"), done], ["prompt 1: hi", 'answer: "one two"', "notice continuation", "end 1 done"]],
  ["a discarded continuation attempt keeps the first step's text", [start, said("one "), { type: "continuation", reason: "length" }, text("tw"), discarded(), text("two"), said("two"), done], ["prompt 1: hi", 'answer: "one two"', "notice continuation", "end 1 done"]],
  ["reasoning only from the assistant event (not streamed) counts once", [start, said("a", "why"), done], ["prompt 1: hi", 'answer: "a" ∴ "why"', "end 1 done"]],
  [
    "interleaved tool calls pair with their approvals and results by callId",
    [start, said("looking"), call("c1"), call("c2", "bash"), { type: "approval_request", callId: "c2", name: "bash", input: {}, summary: "bash: ls", suggestedRule: "Bash(ls)" }, result("c1"), { type: "approval_resolved", callId: "c2", decision: "deny" }, result("c2", false, "bash"), said("done"), done],
    ["prompt 1: hi", 'answer: "looking"', "tool c1 read_file ok: c1 read", "tool c2 bash denied (deny): c2 failed", 'answer: "done"', "end 1 done"],
  ],
  ["an empty step leaves no answer block", [start, think(""), said(""), call("c1"), result("c1"), said("ok"), done], ["prompt 1: hi", "tool c1 read_file ok: c1 read", 'answer: "ok"', "end 1 done"]],
  [
    "an error and the turn end that repeats it",
    [start, { type: "error", code: "x", message: "boom: provider down" }, { type: "turn_end", turn: 1, reason: "error", error: "provider down" }],
    ["prompt 1: hi", "notice error", "end 1 error: provider down (said)"],
  ],
  ["a turn that ends mid-stream closes its answer", [start, text("cut"), { type: "turn_end", turn: 1, reason: "error", error: "x" }], ["prompt 1: hi", 'answer: "cut"', "end 1 error: x"]],
  ["events without a transcript block (session, usage, progress) add none", [{ type: "session", sessionId: "s", workspace: "/w", model: "m" }, start, { type: "tool_progress", callId: "c", progress: 1 }, said("a"), done], ["prompt 1: hi", 'answer: "a"', "end 1 done"]],
];

for (const [title, events, want] of TABLE) {
  test(`fold: ${title}`, () => {
    expect(foldTranscript(events).blocks.map(brief)).toEqual(want);
  });
}

test("the incremental fold streams: an open answer, then its removal when the attempt fails", () => {
  const t = emptyTranscript();
  fold(t, start);
  const s = fold(t, text("half"));
  expect(s).toMatchObject({ op: "text", text: "half" });
  expect(t.blocks.map(brief)).toEqual(["prompt 1: hi", 'answer (streaming): "half"']);
  expect(fold(t, discarded())).toMatchObject({ op: "discard", dropped: { removed: true, text: "half" } });
  expect(t.blocks.map(brief)).toEqual(["prompt 1: hi"]);
});

test("the answer step says whether reasoning still has to be shown, and whether it joined", () => {
  const t = emptyTranscript();
  fold(t, start);
  fold(t, think("streamed"));
  const first = fold(t, said("a", "streamed"));
  expect(first).toMatchObject({ op: "answer", joined: false, streamed: "" });
  expect(first).not.toHaveProperty("reasoning");
  fold(t, { type: "continuation", reason: "length" });
  expect(fold(t, said("b", "unstreamed"))).toMatchObject({ op: "answer", joined: true, reasoning: "unstreamed" });
});

test("running calls are those without a result; a turn end clears them", () => {
  const t = foldTranscript([start, call("c1"), call("c2"), result("c1")]);
  expect([...t.running.keys()]).toEqual(["c2"]);
  fold(t, done);
  expect(t.running.size).toBe(0);
});

test("a plan-only plan is the answer (asAnswer); another route's plan is a notice to show", () => {
  const plan = { summary: "", steps: [], verifiedTouchpoints: [], candidateTouchpoints: [], nonGoals: [], risks: [], acceptanceCriteria: [], verificationCommands: [] };
  const t = emptyTranscript();
  expect(fold(t, { type: "plan", route: "plan_only", plan, text: "p" })).toMatchObject({ op: "notice", asAnswer: true });
  expect(fold(t, { type: "plan", route: "plan_first", plan, text: "p" })).not.toHaveProperty("asAnswer");
});
