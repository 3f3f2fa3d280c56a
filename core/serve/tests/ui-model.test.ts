// The web UI's pure parts: the event → view reducer and the incremental
// markdown splitter/renderer (no browser needed).
import { expect, test } from "bun:test";
import { newSplitter, renderBlock, splitMore, streamingShown } from "../ui/src/markdown.ts";
import { apply, emptyView, missingKeyProvider, type Item } from "../ui/src/transcript.ts";
import { answerText, foldTranscript, turnAnswer, type AnswerBlock } from "../../protocol/fold.ts";

const feed = (events: Record<string, unknown>[]) => {
  const v = emptyView();
  for (const e of events) apply(v, e);
  return v;
};
const kinds = (items: Item[]) => items.map((i) => i.kind);

test("deltas build one streaming answer; the assistant event settles it", () => {
  const v = feed([
    { type: "turn_start", turn: 1, prompt: "hi" },
    { type: "reasoning_delta", text: "hm" },
    { type: "text_delta", text: "Hel" },
    { type: "text_delta", text: "lo" },
  ]);
  expect(kinds(v.items)).toEqual(["user", "assistant"]);
  expect(v.items[1]).toMatchObject({ text: "Hello", reasoning: "hm", streaming: true });
  apply(v, { type: "assistant", text: "Hello" });
  expect(v.items[1]).toMatchObject({ text: "Hello", streaming: false });
});

test("attempt_discarded drops the failed attempt's deltas (the retry's text replaces them)", () => {
  const v = feed([
    { type: "turn_start", turn: 1, prompt: "hi" },
    { type: "text_delta", text: "broken half" },
    { type: "attempt_discarded", attempt: 1, reason: "reset" },
    { type: "retry", attempt: 1, delayMs: 1000, reason: "reset" },
    { type: "text_delta", text: "whole" },
    { type: "assistant", text: "whole" },
  ]);
  const answers = v.items.filter((i) => i.kind === "assistant");
  expect(answers).toHaveLength(1);
  expect(answers[0]).toMatchObject({ text: "whole" });
});

test("a discarded attempt split by a waiting notice loses every block it streamed into", () => {
  const v = feed([
    { type: "turn_start", turn: 1, prompt: "hi" },
    { type: "text_delta", text: "first half" },
    { type: "waiting", phase: "idle", seconds: 1, timeoutSeconds: 2, setting: "idle_timeout_seconds" },
    { type: "text_delta", text: "second half" },
    { type: "attempt_discarded", attempt: 1, reason: "stalled" },
    { type: "text_delta", text: "good" },
    { type: "assistant", text: "good" },
  ]);
  expect(v.items.filter((i) => i.kind === "assistant").map((i) => (i as { text: string }).text)).toEqual(["good"]);
});

test("a successful attempt split by a waiting notice shows its answer once", () => {
  const v = feed([
    { type: "turn_start", turn: 1, prompt: "hi" },
    { type: "text_delta", text: "slow " },
    { type: "waiting", phase: "idle", seconds: 1, timeoutSeconds: 9, setting: "idle_timeout_seconds" },
    { type: "text_delta", text: "answer" },
    { type: "assistant", text: "slow answer" },
  ]);
  expect(v.items.filter((i) => i.kind === "assistant").map((i) => (i as { text: string }).text)).toEqual(["slow answer"]);
});

test("a cancelled answer: deltas dropped, then the committed partial text shows", () => {
  const v = feed([
    { type: "turn_start", turn: 1, prompt: "hi" },
    { type: "text_delta", text: "partial an" },
    { type: "attempt_discarded", attempt: 1, reason: "cancelled" },
    { type: "assistant", text: "partial an" },
    { type: "turn_end", turn: 1, reason: "cancelled" },
  ]);
  expect(kinds(v.items)).toEqual(["user", "assistant", "system"]);
  expect(v.items[1]).toMatchObject({ text: "partial an", streaming: false });
});

test("approval request → resolved → result, with diffs and the changed-files map", () => {
  const diff = [{ path: "a.txt", kind: "modify", added: 1, removed: 1, hunks: [] }];
  const v = feed([
    { type: "turn_start", turn: 1, prompt: "edit" },
    { type: "tool_call", callId: "c1", name: "edit_file", input: { path: "a.txt" } },
    { type: "approval_request", callId: "c1", name: "edit_file", input: { path: "a.txt" }, summary: "edit a.txt", suggestedRule: "Edit(a.txt)", diff },
  ]);
  const t = v.items[1] as Extract<Item, { kind: "tool" }>;
  expect(t).toMatchObject({ status: "ask", request: { summary: "edit a.txt", diff } });
  apply(v, { type: "approval_resolved", callId: "c1", decision: "once" });
  expect(t.status).toBe("allowed");
  apply(v, { type: "tool_result", callId: "c1", name: "edit_file", ok: true, output: "edited", diff });
  expect(t).toMatchObject({ status: "ok", output: "edited", diff });
  expect([...v.changed.keys()]).toEqual(["a.txt"]);
});

test("an error and the turn_end that repeats it show once; a missing key names its provider", () => {
  const msg = 'provider "nokey": api_key_env NOKEY_API_KEY has no value in /h/.env (store it with `reasonix setup key nokey`)';
  const v = feed([
    { type: "turn_start", turn: 1, prompt: "hi" },
    { type: "error", code: "provider_config", message: msg },
    { type: "turn_end", turn: 1, reason: "error", error: msg },
  ]);
  const sys = v.items.filter((i) => i.kind === "system");
  expect(sys).toHaveLength(1);
  expect(sys[0]).toMatchObject({ tone: "error", keyFor: "nokey" });
  expect(missingKeyProvider("something else")).toBeUndefined();
});

test("usage keeps totals, cost and the last prompt size", () => {
  const v = feed([{ type: "usage", turn: { inputTokens: 900, outputTokens: 100, cacheHitTokens: 0 }, total: { inputTokens: 1900, outputTokens: 300, cacheHitTokens: 0 }, cacheHitPercent: 12.4, cost: { turn: 0.01, total: 0.02, currency: "USD" } }]);
  expect(v.usage).toEqual({ inputTokens: 1900, outputTokens: 300, cacheHitPercent: 12.4, cost: { turn: 0.01, total: 0.02, currency: "USD" }, lastPrompt: 1000 });
});

test("markdown blocks close at blank lines outside code fences, scanned incrementally", () => {
  const sp = newSplitter();
  const text = "# T\n\npara one\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nlast";
  // Feed it in small pieces: the cuts must match a one-shot scan.
  for (let i = 1; i <= text.length; i++) splitMore(sp, text.slice(0, i));
  splitMore(sp, text);
  const once = newSplitter();
  splitMore(once, text);
  expect(sp.cuts).toEqual(once.cuts);
  const blocks = [0, ...sp.cuts].map((c, i, all) => text.slice(c, all[i + 1] ?? text.length));
  expect(blocks).toEqual(["# T\n\n", "para one\n\n", "```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n", "last"]);
});

test("rendered markdown escapes raw HTML, keeps only safe links and highlights closed code", () => {
  const html = renderBlock('<img src=x onerror=alert(1)> [a](javascript:alert(1)) [b](https://ok.example/)\n\n```js\nconst x = 1;\n```', true);
  expect(html).not.toContain("<img");
  expect(html).toContain("&#60;img");
  expect(html).not.toContain("javascript:");
  expect(html).toContain('href="https://ok.example/"');
  expect(html).toContain('class="hljs-keyword"');
  expect(html).toContain('<span class="lang">js</span>');
  // Still streaming: same structure, no highlighting yet.
  expect(renderBlock("```js\nconst x", false)).not.toContain("hljs-keyword");
  expect(renderBlock("```js\nconst x", false)).toContain('<div class="codeblock">');
});

test("while streaming, a table row shows only once it arrived whole (issue 27)", () => {
  const table = "| a | b |\n|---|---|\n| 1 | 2 |\n";
  expect(streamingShown("| f")).toBe("");
  expect(streamingShown("| fruit | n |\n")).toBe("");
  expect(streamingShown("| fruit | n |\n|--")).toBe("");
  expect(streamingShown(`${table}| f`)).toBe(table);
  expect(streamingShown(table)).toBe(table);
  expect(streamingShown("plain text, still coming")).toBe("plain text, still coming");
  // In an open code fence a leading "|" is code.
  expect(streamingShown("```sh\nls\n| sort")).toBe("```sh\nls\n| sort");
});

test("ordered lists carry the width of their highest number (two digits get room for `10.`)", () => {
  expect(renderBlock("1. a\n2. b\n", true)).toContain('<ol class="digits-1">');
  expect(renderBlock(Array.from({ length: 12 }, (_, i) => `${i + 1}. x`).join("\n"), true)).toContain('<ol class="digits-2">');
  expect(renderBlock("98. a\n99. b\n100. c\n", true)).toContain('<ol class="digits-3" start="98">');
});

test("a turn's answer parts are one answer: the web view marks them and the copy text joins them (issue 27)", () => {
  const events = [
    { type: "turn_start", turn: 1, prompt: "go" },
    { type: "assistant", text: "First." },
    { type: "tool_call", callId: "c1", name: "ls", input: {} },
    { type: "tool_result", callId: "c1", name: "ls", ok: true, output: "a" },
    { type: "assistant", text: "Second." },
    { type: "turn_end", turn: 1, reason: "done" },
    { type: "turn_start", turn: 2, prompt: "again" },
    { type: "assistant", text: "Alone." },
    { type: "turn_end", turn: 2, reason: "done" },
  ];
  const t = foldTranscript(events as never);
  const answers = t.blocks.filter((b): b is AnswerBlock => b.kind === "answer");
  expect(answerText(turnAnswer(t, answers[1]!))).toBe("First.\n\nSecond.");
  expect(turnAnswer(t, answers[2]!)).toEqual([answers[2]!]);
  const view = emptyView();
  for (const e of events) apply(view, e);
  const marks = view.items.flatMap((i) => (i.kind === "assistant" ? [i.answerOf ?? null] : []));
  const first = view.items.find((i) => i.kind === "assistant")!.key;
  expect(marks).toEqual([first, first, null]);
});
