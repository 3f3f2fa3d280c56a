// Reasoning request shapes on the wire against a third-party mock server
// (@copilotkit/aimock), next to the scripted-server tests in reasoning.test.ts.
import { expect, test } from "bun:test";
import { createProvider, type ProviderConfig } from "../index.ts";
import { aimockBase, aimockServer } from "./aimock-server.ts";

const mock = aimockServer((m) => m.onMessage("hi", { content: "hello" }));

async function bodyFor(over: Partial<ProviderConfig>, effort?: string): Promise<any> {
  mock.clearRequests?.();
  const kind = over.kind ?? "openai";
  const base = aimockBase(mock, kind);
  const p = createProvider({ name: "m", kind, model: "gpt-4o", base_url: base, ...over } as ProviderConfig, { secret: () => undefined });
  const r = await p.chat({ system: "S", tools: [], messages: [{ role: "user", content: "hi" }], ...(effort ? { reasoningEffort: effort } : {}) }, {}, new AbortController().signal);
  expect(r.message.content).toBe("hello");
  return mock.getLastRequest()!.body as any;
}

test("DeepSeek thinking on/off, effort levels, MiniMax adaptive, Kimi max_completion_tokens, plain", async () => {
  const on = await bodyFor({ capability: "deepseek-thinking", thinking: "enabled" }, "max");
  expect([on.thinking, on.reasoning_effort]).toEqual([{ type: "enabled" }, "max"]);
  const off = await bodyFor({ capability: "deepseek-thinking", thinking: "disabled" }, "high");
  expect([off.thinking, off.reasoning_effort]).toEqual([{ type: "disabled" }, undefined]);
  for (const [effort, want] of [["minimal", "minimal"], ["low", "low"], ["medium", "medium"], ["high", "high"], ["max", "high"]] as const) {
    expect((await bodyFor({}, effort)).reasoning_effort).toBe(want);
  }
  const mm = await bodyFor({ model: "MiniMax-M3", thinking: "adaptive" }, "high");
  expect([mm.thinking, mm.reasoning_effort]).toEqual([{ type: "adaptive" }, undefined]);
  const kimi = await bodyFor({ model: "kimi-k3", max_output_tokens: 2048 });
  expect([kimi.max_completion_tokens, kimi.max_tokens]).toEqual([2048, undefined]);
  const plain = await bodyFor({ capability: "plain", thinking: "enabled", reasoning_effort: "high" }, "high");
  expect([plain.thinking, plain.reasoning_effort]).toEqual([undefined, undefined]);
  // aimock journals Anthropic requests translated to its chat shape (thinking is not kept):
  // the anthropic thinking shape is asserted against the scripted server in reasoning.test.ts.
});
