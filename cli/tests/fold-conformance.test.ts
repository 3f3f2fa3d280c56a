// Every front end renders from the one transcript fold (core/protocol/fold.ts):
// driven by the same scripted event stream, the terminal chat, line mode,
// `run`'s text output, ACP and the web UI (and `sessions show`) each hold the transcript that
// foldTranscript() gives for it, and what each shows follows it (the failed
// attempt's text is gone, the continued answer is one answer).
import { expect, test } from "bun:test";
import type { EngineEvent } from "../../core/protocol/events.ts";
import { foldTranscript, type Transcript } from "../../core/protocol/fold.ts";
import { brief } from "../../core/protocol/tests/brief.ts";
import { Transcript as ChatTranscript } from "../chat/transcript.ts";
import { LineEvents } from "../chat/line-events.ts";
import { plainPaint } from "../chat/cards.ts";
import { TextRunOutput } from "../run-text-output.ts";
import { UpdateTranslator } from "../../core/acp/updates.ts";
import { sessionText } from "../commands/session-text.ts";
import { apply, emptyView } from "../../core/serve/ui/src/transcript.ts";

const SCRIPT: EngineEvent[] = [
  { type: "session", sessionId: "s1", workspace: "/w", model: "m" },
  { type: "turn_start", sessionId: "s1", turn: 1, prompt: "fix it" },
  { type: "reasoning_delta", text: "look first" },
  { type: "text_delta", text: "Let me look." },
  { type: "assistant", text: "Let me look.", reasoning: "look first" },
  { type: "tool_call", callId: "c1", name: "read_file", input: { path: "a.txt" } },
  { type: "tool_call", callId: "c2", name: "bash", input: { command: "ls" } },
  { type: "approval_request", callId: "c2", name: "bash", input: { command: "ls" }, summary: "bash: ls", suggestedRule: "Bash(ls)" },
  { type: "tool_result", callId: "c1", name: "read_file", ok: true, output: "hello", receipt: "read a.txt" },
  { type: "approval_resolved", callId: "c2", decision: "once" },
  { type: "tool_result", callId: "c2", name: "bash", ok: true, output: "a.txt", receipt: "ran ls" },
  { type: "text_delta", text: "BROKEN HALF" },
  { type: "attempt_discarded", attempt: 1, reason: "connection reset" },
  { type: "retry", attempt: 1, delayMs: 100, reason: "connection reset" },
  { type: "text_delta", text: "Fixed the first " },
  { type: "assistant", text: "Fixed the first " },
  { type: "continuation", reason: "length", outputLimit: 16 },
  { type: "text_delta", text: "and the second." },
  { type: "assistant", text: "and the second." },
  { type: "warning", code: "w", message: "a note" },
  { type: "usage", turn: { inputTokens: 10, outputTokens: 5, cacheHitTokens: 0 }, total: { inputTokens: 10, outputTokens: 5, cacheHitTokens: 0 }, cacheHitPercent: 0 },
  { type: "turn_end", turn: 1, reason: "done" },
];

const want = foldTranscript(SCRIPT);
const shape = (t: Transcript) => ({ blocks: t.blocks.map(brief), running: [...t.running.keys()], turnOpen: t.turnOpen, model: t.model });

test("the script folds to the transcript the rules say", () => {
  expect(want.blocks.map(brief)).toEqual([
    "prompt 1: fix it",
    'answer: "Let me look." ∴ "look first"',
    "tool c1 read_file ok: hello",
    "tool c2 bash ok (once): a.txt",
    "notice retry",
    'answer: "Fixed the first and the second."',
    "notice continuation",
    "notice warning",
    "end 1 done",
  ]);
});

test("all five front ends hold the same folded transcript, and show what it holds", () => {
  // Terminal chat: scrollback lines.
  const scroll: string[] = [];
  const chat = new ChatTranscript(plainPaint, (ls) => scroll.push(...ls), () => 100);
  // Line mode: plain output.
  let lineOut = "";
  const line = new LineEvents({ out: (s) => (lineOut += s), width: () => 100, unanswerable: () => false, deny: () => {}, status: () => "status" });
  // `run --output-format text`, piped: stdout is the committed answer only.
  let stdout = "";
  let stderr = "";
  const run = new TextRunOutput({ write: (s: string) => (stdout += s) }, { write: (s: string) => (stderr += s) } as never);
  // ACP session/update payloads.
  const acp = new UpdateTranslator("/w");
  const updates: unknown[] = [];
  // The web UI's view.
  const view = emptyView();

  for (const e of SCRIPT) {
    chat.event(e);
    line.onEvent(e);
    run.handle(e);
    updates.push(...acp.live(e));
    apply(view, e as Record<string, unknown>);
  }
  run.finish();

  for (const t of [chat.t, line.t, run.t, acp.t, view.t]) expect(shape(t)).toEqual(shape(want));

  // What each shows follows the fold: the continued answer is one answer, the failed attempt's text is not in it.
  expect(stdout).toBe("Let me look.\nFixed the first and the second.\n");
  const webAnswers = view.items.flatMap((i) => (i.kind === "assistant" ? [i.text] : []));
  expect(webAnswers).toEqual(["Let me look.", "Fixed the first and the second."]);
  expect(view.items.filter((i) => i.kind === "tool").map((i) => (i.kind === "tool" ? i.status : ""))).toEqual(["ok", "ok"]);
  expect(scroll.join("\n")).toContain("Fixed the first");
  expect(scroll.join("\n")).not.toContain("BROKEN HALF");
  expect(lineOut).toContain("(that attempt failed: connection reset; discard the partial answer above)");
  expect(stderr).toContain("(discarded the partial answer of attempt 1)");
  const thoughts = updates.filter((u) => (u as { sessionUpdate: string }).sessionUpdate === "agent_thought_chunk").map((u) => (u as { content: { text: string } }).content.text);
  expect(thoughts.some((t) => t.includes("what streamed above is discarded"))).toBe(true);
});

test("`reasonix sessions show` prints a saved session from the same fold", () => {
  const text = sessionText(SCRIPT).replace(/\x1b\[[0-9;]*m/g, "");
  expect(text).toContain("[turn 1] fix it\nlook first\nLet me look.\n");
  expect(text).toContain("Fixed the first and the second.\n");
  expect(text).not.toContain("BROKEN HALF");
  expect(text).toContain("• bash {\"command\":\"ls\"}\n  ↳ ran ls\n");
  expect(text).toContain("(warning: a note)");
});
