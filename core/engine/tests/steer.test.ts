// Steering: guidance given while a turn runs reaches the model at the next
// step of that turn, as a user message at the tail; the system prompt and the
// earlier messages stay byte-identical. Idle guidance waits for the next turn.
import { afterEach, expect, test } from "bun:test";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { steerMessage } from "../session.ts";
import type { EngineSession } from "../types.ts";
import { engineFor, makeSandbox } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Resolves when the session emits an event of this type. */
const next = (s: EngineSession, type: string) =>
  new Promise<void>((resolve) => {
    const off = s.subscribe((e) => {
      if (e.type === type) {
        off();
        resolve();
      }
    });
  });

test("guidance during a tool round joins the next provider request of the same turn", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([
    { text: "working", toolCalls: [{ name: "slow_read", arguments: { name: "x", ms: 300 } }] },
    { text: "done with the guidance" },
  ]);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  const toolStarted = next(s, "tool_call");
  const turn = s.submit("do it");
  await toolStarted;
  expect(s.steer!("use email instead of username")).toBe("steer_accepted");
  expect(await turn).toBe("done");
  const [first, second] = llm.chatRequests().map((r) => r.body);
  expect(second.messages[0]).toEqual(first.messages[0]); // system prompt unchanged
  expect(JSON.stringify(second.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
  const last = second.messages.at(-1);
  expect(last.role).toBe("user");
  expect(last.content).toBe(steerMessage("use email instead of username"));
  expect(second.messages.at(-2).role).toBe("tool");
});

test("guidance that arrives during the final step keeps the turn going for one more step", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ text: "first answer", delayMs: 300 }, { text: "revised answer" }]);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  const started = next(s, "turn_start");
  const turn = s.submit("answer");
  await started;
  expect(s.steer!("shorter please")).toBe("steer_accepted");
  expect(await turn).toBe("done");
  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(2);
  expect(reqs[1]!.body.messages.at(-1).content).toBe(steerMessage("shorter please"));
});

test("idle guidance is queued for the next turn's first request", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ text: "ok" }]);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  expect(s.steer!("remember: tabs, not spaces")).toBe("queued_followup");
  expect(() => s.steer!("   ")).toThrow(/empty/);
  expect(await s.submit("format the file")).toBe("done");
  const msgs = llm.chatRequests()[0]!.body.messages;
  expect(msgs.at(-2)).toEqual({ role: "user", content: "format the file" });
  expect(msgs.at(-1)).toEqual({ role: "user", content: steerMessage("remember: tabs, not spaces") });
});
