// The text renderer of `reasonix run`: piped stdout gets only committed
// answers; on a terminal a discarded attempt's live text is erased.
import { expect, test } from "bun:test";
import { rowsOf, TextRunOutput } from "../run-text-output.ts";

function sinks(tty: boolean) {
  const out = { data: "", isTTY: tty, columns: 20, rows: 24, write(s: string) { out.data += s; } };
  const err = { data: "", isTTY: false, write(s: string) { err.data += s; } };
  return { out, err, r: new TextRunOutput(out, err as unknown as NodeJS.WriteStream) };
}

test("piped: deltas are held, committed answers are written once, a continuation joins the cut answer", () => {
  const { out, r } = sinks(false);
  r.handle({ type: "text_delta", text: "This long answer will" });
  r.handle({ type: "attempt_discarded", attempt: 1, reason: "cut" });
  r.handle({ type: "text_delta", text: "The first half" });
  expect(out.data).toBe("");
  r.handle({ type: "assistant", text: "The first half" });
  r.handle({ type: "continuation", reason: "length", outputLimit: 10 });
  r.handle({ type: "assistant", text: " and the rest." });
  r.handle({ type: "tool_call", callId: "c", name: "ls", input: {} });
  r.handle({ type: "assistant", text: "Next step." });
  r.finish();
  expect(out.data).toBe("The first half and the rest.\nNext step.\n");
});

test("terminal: live deltas; a discarded attempt is erased (cursor up over its rows, clear to end of screen)", () => {
  const { out, err, r } = sinks(true);
  const cut = "x".repeat(45); // 3 rows at 20 columns
  r.handle({ type: "text_delta", text: cut });
  expect(out.data).toBe(cut);
  r.handle({ type: "attempt_discarded", attempt: 1, reason: "cut" });
  expect(out.data).toBe(`${cut}\r\x1b[2A\x1b[J`);
  expect(err.data).toContain("discarded the partial answer of attempt 1");
  r.handle({ type: "text_delta", text: "Good " });
  r.handle({ type: "text_delta", text: "answer" });
  r.handle({ type: "assistant", text: "Good answer" });
  r.finish();
  expect(out.data).toBe(`${cut}\r\x1b[2A\x1b[J` + "Good answer\n");
});

test("terminal: a notice in the middle of a live answer goes above it, not into it", () => {
  const { out, err, r } = sinks(true);
  r.handle({ type: "text_delta", text: "Half an" });
  r.handle({ type: "waiting", phase: "idle", seconds: 10, timeoutSeconds: 120, setting: "idle_timeout_seconds" });
  expect(out.data).toBe("Half an\r\x1b[JHalf an");
  expect(err.data).toContain("waiting for the model: nothing received for 10 s mid-answer (gives up at 120 s, idle_timeout_seconds)\n");
  r.handle({ type: "text_delta", text: " answer" });
  r.handle({ type: "assistant", text: "Half an answer" });
  r.finish();
  expect(out.data).toBe("Half an\r\x1b[JHalf an answer\n");
});

test("reasoning on stderr gets its newline before the next line", () => {
  const { err, r } = sinks(false);
  r.handle({ type: "reasoning_delta", text: "Let me look" });
  r.handle({ type: "tool_call", callId: "c", name: "ls", input: {} });
  r.handle({ type: "reasoning_delta", text: "done thinking" });
  r.finish();
  expect(err.data).toBe('Let me look\n• ls {}\ndone thinking\n');
});

test("rowsOf counts wrapped and explicit lines", () => {
  expect(rowsOf("abc", 20)).toBe(1);
  expect(rowsOf("x".repeat(40), 20)).toBe(2);
  expect(rowsOf("a\nb\n", 20)).toBe(3);
});
