// The per-session reasoning effort front ends set (/effort, web UI, ACP):
// later requests carry it, the replayed prefix does not change.
import { afterEach, expect, test } from "bun:test";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { engineFor, makeSandbox } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("setReasoningEffort changes the effort of later requests only; messages stay byte-identical", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ text: "one" }, { text: "two" }, { text: "three" }]);
  const engine = engineFor(sb, llm.url, { providerExtra: { reasoning_effort: "low" } });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  expect(s.reasoningEffort).toBeUndefined();
  await s.submit("a");
  s.setReasoningEffort!("high");
  expect(s.reasoningEffort).toBe("high");
  await s.submit("b");
  s.setReasoningEffort!(undefined);
  await s.submit("c");
  const bodies = llm.chatRequests().map((r) => r.body);
  expect(bodies.map((b) => b.reasoning_effort)).toEqual(["low", "high", "low"]);
  // The second request's messages start with the first request's, byte for byte.
  const first = JSON.stringify(bodies[0].messages).slice(0, -1);
  expect(JSON.stringify(bodies[1].messages).startsWith(first)).toBe(true);
  expect(JSON.stringify(bodies[1].tools)).toBe(JSON.stringify(bodies[0].tools));
  expect(() => s.setReasoningEffort!("turbo")).toThrow(/unknown reasoning effort "turbo"/);
});
