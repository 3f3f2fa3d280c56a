// Finish reasons and failed attempts in the agent loop (engine level).
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptStep } from "../../testing/scripted-llm.ts";
import type { EngineEvent } from "../types.ts";
import { collect, engineFor, makeSandbox } from "./helpers.ts";
import { pollFor } from "../../testing/fresh-wait.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function session(steps: ScriptStep[]) {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI(steps);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  return { sb, llm, s, events: collect(s) };
}

const types = (evs: EngineEvent[]) => evs.map((e) => e.type).filter((t) => t !== "text_delta" && t !== "reasoning_delta");

test("cancelling while an attempt streams discards its deltas", async () => {
  const { s, events } = await session([{ text: "A long answer that stalls here", stallAfter: 4 }]);
  const done = s.submit("go");
  await pollFor("a streamed delta", () => events.some((e) => e.type === "text_delta"), (ok) => ok);
  s.cancel();
  expect(await done).toBe("cancelled");
  expect(events.find((e) => e.type === "attempt_discarded")).toMatchObject({ attempt: 1, reason: "cancelled" });
  // The deltas are void; whatever of them the engine keeps for a cancelled turn comes again as an assistant event.
  const t = types(events);
  expect(t.indexOf("attempt_discarded")).toBeGreaterThan(t.indexOf("turn_start"));
  expect(t.at(-1)).toBe("turn_end");
});

test("a failed attempt that streamed nothing sends no discard", async () => {
  const { s, events } = await session([{ kind: "error", status: 503 }, { text: "ok" }]);
  expect(await s.submit("go")).toBe("done");
  expect(types(events)).toContain("retry");
  expect(types(events)).not.toContain("attempt_discarded");
});

test("an answer cut off in its reasoning (no text) is not continued: the turn ends as length", async () => {
  const { s, events, llm } = await session([{ reasoning: "thinking and thinking", finishReason: "length" }]);
  expect(await s.submit("go")).toBe("length");
  expect(llm.chatRequests()).toHaveLength(1);
  expect(events.at(-1)).toMatchObject({ type: "turn_end", reason: "length" });
});

test("a filtered answer does not run the tool calls it carried; the conversation stays valid", async () => {
  const { s, sb, llm } = await session([
    { toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }], finishReason: "content_filter" },
    { text: "fine" },
  ]);
  expect(await s.submit("go")).toBe("content_filter");
  expect(existsSync(join(sb.workspace, "x.txt"))).toBe(false);
  expect(await s.submit("again")).toBe("done");
  const msgs = llm.chatRequests()[1]!.body.messages;
  expect(msgs.find((m: any) => m.role === "tool")?.content).toContain("cancelled before it ran");
});

test("only one continuation round per turn, even over tool rounds", async () => {
  const { s, llm } = await session([
    { text: "part one", finishReason: "length" },
    { text: " part two", toolCalls: [{ name: "read_file", arguments: { path: "nope" } }] },
    { text: "cut again", finishReason: "length" },
  ]);
  expect(await s.submit("go")).toBe("length");
  expect(llm.chatRequests()).toHaveLength(3);
});
