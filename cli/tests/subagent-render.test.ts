// A subagent's progress (`subagent` events) in reasonix run's text output,
// the terminal chat (full screen and line mode) and the web UI's transcript
// model: one compact line per start, tool call and end.
import { expect, test } from "bun:test";
import { plainPaint } from "../chat/cards.ts";
import { Transcript } from "../chat/transcript.ts";
import { TextRunOutput } from "../run-text-output.ts";
import { apply, emptyView } from "../../core/serve/ui/src/transcript.ts";
import type { EngineEvent } from "../../core/engine/types.ts";

const base = { type: "subagent" as const, name: "find callers", sessionId: "20260101-000000-abcdef", callId: "c1" };
const events: EngineEvent[] = [
  { ...base, phase: "start", readOnly: true },
  { ...base, phase: "tool", tool: "grep", detail: "loadConfig" },
  { ...base, phase: "end", reason: "done" },
  { ...base, phase: "end", reason: "max_steps" },
];
const LINES = ["↳ subagent find callers started (read-only)", "  find callers › grep: loadConfig", "↳ subagent find callers finished", "↳ subagent find callers ended (max_steps)"];

test("reasonix run: one line per event on stderr, nothing on stdout", () => {
  const out = { data: "", isTTY: false, columns: 80, rows: 24, write(s: string) { out.data += s; } };
  const err = { data: "", isTTY: false, write(s: string) { err.data += s; } };
  const r = new TextRunOutput(out, err as unknown as NodeJS.WriteStream);
  for (const e of events) r.handle(e);
  r.finish();
  expect(out.data).toBe("");
  expect(err.data.split("\n").filter(Boolean)).toEqual(LINES);
});

test("terminal chat: the transcript commits the lines", () => {
  const committed: string[] = [];
  const t = new Transcript(plainPaint, (l) => committed.push(...l), () => 200);
  for (const e of events) t.event(e);
  expect(committed).toEqual(LINES);
});

test("web UI: system lines, a warning tone for a child that did not finish", () => {
  const v = emptyView();
  for (const e of events) apply(v, e as unknown as Record<string, unknown>);
  expect(v.items.map((i) => [i.kind, (i as { text?: string }).text, (i as { tone?: string }).tone])).toEqual(LINES.map((l, i) => ["system", l, i === 3 ? "warn" : "info"]));
});
