// The Guardian's verdict line in reasonix run's text output, the terminal
// chat's transcript and the web UI's transcript model: one compact line that
// names the outcome, the call, risk, authorization and reason.
import { expect, test } from "bun:test";
import { plainPaint } from "../chat/cards.ts";
import { Transcript } from "../chat/transcript.ts";
import { TextRunOutput } from "../run-text-output.ts";
import { apply, emptyView } from "../../core/serve/ui/src/transcript.ts";
import type { EngineEvent } from "../../core/engine/types.ts";

const denied: EngineEvent = { type: "guardian", callId: "c1", name: "bash", summary: "bash: rm -rf keep", outcome: "deny", risk: "critical", authorization: "unknown", reason: "deletes data nobody mentioned" };
const allowed: EngineEvent = { type: "guardian", callId: "c2", name: "bash", summary: "bash: touch a", outcome: "allow", risk: "low", authorization: "high", reason: "asked for" };
const down: EngineEvent = { type: "guardian", callId: "c3", name: "bash", summary: "bash: touch b", outcome: "ask", reason: "no verdict within 10 s", unavailable: true };
const DENIED = "reviewed by Guardian: denied bash: rm -rf keep (critical risk, authorization unknown): deletes data nobody mentioned";
const ALLOWED = "reviewed by Guardian: allowed bash: touch a (low risk, authorization high): asked for";
const DOWN = "Guardian unavailable for bash: touch b (asks you): no verdict within 10 s";

test("reasonix run: one line per review on stderr, nothing on stdout", () => {
  const out = { data: "", isTTY: false, columns: 80, rows: 24, write(s: string) { out.data += s; } };
  const err = { data: "", isTTY: false, write(s: string) { err.data += s; } };
  const r = new TextRunOutput(out, err as unknown as NodeJS.WriteStream);
  for (const e of [allowed, denied, down]) r.handle(e);
  r.finish();
  expect(out.data).toBe("");
  expect(err.data.split("\n").filter(Boolean)).toEqual([ALLOWED, DENIED, DOWN]);
});

test("terminal chat: the transcript commits the line", () => {
  const committed: string[] = [];
  const t = new Transcript(plainPaint, (l) => committed.push(...l), () => 200);
  t.event(denied);
  t.event(down);
  expect(committed).toEqual([DENIED, DOWN]);
});

test("web UI: a system line, a warning tone for deny and ask", () => {
  const v = emptyView();
  for (const e of [allowed, denied]) apply(v, e as unknown as Record<string, unknown>);
  expect(v.items.map((i) => [i.kind, (i as { text?: string }).text, (i as { tone?: string }).tone])).toEqual([
    ["system", ALLOWED, "info"],
    ["system", DENIED, "warn"],
  ]);
});
