// Reasoning request shapes per vendor, asserted on the wire against the
// scripted servers (real HTTP on 127.0.0.1).
import { describe, expect, test } from "bun:test";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import { startScriptedResponses } from "../../testing/scripted-llm-responses.ts";
import { createProvider, type ProviderConfig } from "../index.ts";
import { detectVendor, effortFor, reasoningShape } from "../reasoning.ts";
import { providerFixture, signal } from "./fixture.ts";

const fx = providerFixture({ name: "t", kind: "openai", model: "m-1" }, "UNUSED=x");
const req = fx.req;

/** One request with `over` on the entry and the session's effort; returns the body sent. */
async function sent(over: Partial<ProviderConfig>, effort?: string, messages?: any[]): Promise<any> {
  fx.llm = await startScriptedOpenAI([{ text: "ok" }]);
  const p = createProvider({ name: "t", kind: "openai", model: "m-1", base_url: fx.llm.url, ...over }, { secret: () => undefined });
  await p.chat(req({ ...(effort ? { reasoningEffort: effort } : {}), ...(messages ? { messages } : {}) }), {}, signal());
  const body = fx.llm.chatRequests()[0]!.body;
  await fx.llm.close();
  fx.llm = undefined;
  return body;
}

const toolStep = [
  { role: "user", content: "go" },
  { role: "assistant", content: "", reasoning: "think", toolCalls: [{ id: "c1", name: "read_file", arguments: "{}" }] },
  { role: "tool", callId: "c1", name: "read_file", content: "A" },
  { role: "assistant", content: "done", reasoning: "final thought" },
  { role: "user", content: "more" },
];

describe("vendor detection", () => {
  test("from the base URL, then from the model id behind a gateway", () => {
    expect(detectVendor({ base_url: "https://api.deepseek.com", model: "x" })).toBe("deepseek");
    expect(detectVendor({ base_url: "https://api.minimax.io/v1", model: "x" })).toBe("minimax");
    expect(detectVendor({ base_url: "https://api.minimaxi.com/v1", model: "x" })).toBe("minimax");
    expect(detectVendor({ base_url: "https://open.bigmodel.cn/api/paas/v4", model: "x" })).toBe("glm");
    expect(detectVendor({ base_url: "https://api.z.ai/api/paas/v4", model: "x" })).toBe("glm");
    expect(detectVendor({ base_url: "https://api.moonshot.ai/v1", model: "x" })).toBe("kimi");
    expect(detectVendor({ base_url: "https://ollama.com/v1", model: "x" })).toBe("ollama-cloud");
    expect(detectVendor({ base_url: "https://openrouter.ai/api/v1", model: "deepseek/deepseek-v3.2" })).toBe("deepseek");
    expect(detectVendor({ base_url: "https://openrouter.ai/api/v1", model: "moonshotai/kimi-k3" })).toBe("kimi");
    expect(detectVendor({ base_url: "https://api.openai.com/v1", model: "gpt-5" })).toBe("openai");
    // A look-alike host is not the vendor.
    expect(detectVendor({ base_url: "https://deepseek.com.evil.test", model: "gpt-5" })).toBe("openai");
  });

  test("efforts map onto each vendor's scale", () => {
    const shape = (c: Partial<ProviderConfig>) => reasoningShape({ name: "t", kind: "openai", ...c });
    expect(effortFor(shape({ base_url: "https://api.deepseek.com", model: "deepseek-chat" }), "low")).toBe("high");
    expect(effortFor(shape({ base_url: "https://api.deepseek.com", model: "deepseek-chat" }), "max")).toBe("max");
    expect(effortFor(shape({ base_url: "https://ollama.com", model: "gpt-oss:120b" }), "max")).toBe("max");
    expect(effortFor(shape({ base_url: "https://api.openai.com/v1", model: "gpt-5" }), "max")).toBe("high");
    expect(effortFor(shape({ base_url: "https://api.openai.com/v1", model: "gpt-5" }), "medium")).toBe("medium");
    expect(effortFor(shape({ capability: "plain" }), "high")).toBeUndefined();
  });
});

describe("reasoning request shapes on the wire (chat completions)", () => {
  test("DeepSeek thinking on with an effort, off without one", async () => {
    const on = await sent({ capability: "deepseek-thinking", thinking: "enabled" }, "high");
    expect(on.thinking).toEqual({ type: "enabled" });
    expect(on.reasoning_effort).toBe("high");
    const max = await sent({ capability: "deepseek-thinking", thinking: "enabled" }, "max");
    expect(max.reasoning_effort).toBe("max");
    const off = await sent({ capability: "deepseek-thinking", thinking: "disabled" }, "high");
    expect(off.thinking).toEqual({ type: "disabled" });
    expect(off.reasoning_effort).toBeUndefined();
    // Effort "none" turns thinking off for the session.
    const none = await sent({ capability: "deepseek-thinking" }, "none");
    expect(none.thinking).toEqual({ type: "disabled" });
    expect(none.reasoning_effort).toBeUndefined();
  });

  test("auto sends no control fields until asked; the session's effort overrides the entry's", async () => {
    const auto = await sent({});
    expect(auto.thinking).toBeUndefined();
    expect(auto.reasoning_effort).toBeUndefined();
    const entry = await sent({ reasoning_effort: "low" });
    expect(entry.reasoning_effort).toBe("low");
    const session = await sent({ reasoning_effort: "low" }, "high");
    expect(session.reasoning_effort).toBe("high");
  });

  test("MiniMax: adaptive or disabled, never reasoning_effort", async () => {
    const adaptive = await sent({ model: "MiniMax-M3", thinking: "adaptive" }, "high");
    expect(adaptive.thinking).toEqual({ type: "adaptive" });
    expect(adaptive.reasoning_effort).toBeUndefined();
    const enabled = await sent({ model: "MiniMax-M3", thinking: "enabled" });
    expect(enabled.thinking).toEqual({ type: "adaptive" });
    const off = await sent({ model: "MiniMax-M3", thinking: "disabled" });
    expect(off.thinking).toEqual({ type: "disabled" });
  });

  test("GLM: thinking.type only", async () => {
    const on = await sent({ model: "glm-4.6", thinking: "enabled" }, "high");
    expect(on.thinking).toEqual({ type: "enabled" });
    expect(on.reasoning_effort).toBeUndefined();
  });

  test("Kimi: max_completion_tokens, reasoning_effort, and whole assistant messages replayed", async () => {
    const body = await sent({ model: "kimi-k3", max_output_tokens: 4096 }, "medium", toolStep);
    expect(body.max_completion_tokens).toBe(4096);
    expect(body.max_tokens).toBeUndefined();
    expect(body.reasoning_effort).toBe("medium");
    const assistants = body.messages.filter((m: any) => m.role === "assistant");
    expect(assistants.map((m: any) => m.reasoning_content)).toEqual(["think", "final thought"]);
  });

  test("OpenAI's reasoning models (o-series, gpt-5) get the output limit as max_completion_tokens; other models keep max_tokens", async () => {
    const field = async (over: Partial<ProviderConfig>) => {
      const b = await sent({ max_output_tokens: 3000, ...over });
      return b.max_completion_tokens === 3000 && b.max_tokens === undefined ? "max_completion_tokens" : b.max_tokens === 3000 && b.max_completion_tokens === undefined ? "max_tokens" : JSON.stringify(b);
    };
    for (const model of ["gpt-5", "gpt-5-mini", "gpt-5.1-codex", "o1", "o3", "o3-mini", "o4-mini", "openai/gpt-5", "openai/o3"]) {
      expect([model, await field({ model })]).toEqual([model, "max_completion_tokens"]);
    }
    // The preset marks gpt-5 as openai-reasoning; any model under that capability (e.g. an Azure deployment name).
    expect(await field({ model: "my-deployment", capability: "openai-reasoning" })).toBe("max_completion_tokens");
    for (const model of ["gpt-4.1", "gpt-4o", "llama-3.3-70b", "omni-moderation", "gpt-oss:120b"]) {
      expect([model, await field({ model })]).toEqual([model, "max_tokens"]);
    }
    expect(await field({ model: "o3", capability: "plain" })).toBe("max_tokens");
  });

  test("plain sends no reasoning fields and no reasoning_content", async () => {
    const body = await sent({ capability: "plain", thinking: "enabled", reasoning_effort: "high", max_output_tokens: 100 }, "high", toolStep);
    expect(body.thinking).toBeUndefined();
    expect(body.reasoning_effort).toBeUndefined();
    expect(body.max_tokens).toBe(100);
    expect(body.messages.some((m: any) => "reasoning_content" in m)).toBe(false);
  });

  test("reasoning_content replay: DeepSeek chat on tool steps only, deepseek-reasoner never", async () => {
    const chat = await sent({ model: "deepseek-chat", capability: "deepseek-thinking" }, undefined, toolStep);
    expect(chat.messages.filter((m: any) => m.role === "assistant").map((m: any) => m.reasoning_content)).toEqual(["think", undefined]);
    const reasoner = await sent({ model: "deepseek-reasoner" }, undefined, toolStep);
    expect(reasoner.messages.some((m: any) => "reasoning_content" in m)).toBe(false);
  });

  test("Ollama Cloud keeps max; OpenAI-style clamps it", async () => {
    fx.llm = await startScriptedOpenAI([{ text: "ok" }]);
    const p = createProvider({ name: "o", kind: "openai", model: "gpt-oss:120b", base_url: fx.llm.url, capability: "auto" }, { secret: () => undefined });
    await p.chat(req({ reasoningEffort: "max" }), {}, signal());
    expect(fx.llm.chatRequests()[0]!.body.reasoning_effort).toBe("high");
    // The same entry pointed at ollama.com uses Ollama's scale (shape only: no network).
    expect(effortFor(reasoningShape({ name: "o", kind: "openai", model: "gpt-oss:120b", base_url: "https://ollama.com/v1" }), "max")).toBe("max");
  });
});

describe("reasoning on the other kinds", () => {
  test("anthropic: thinking budget from the effort, adaptive, disabled", async () => {
    for (const [over, effort, want] of [
      [{}, "high", { type: "enabled", budget_tokens: 16384 }],
      [{ thinking: "adaptive" }, undefined, { type: "adaptive" }],
      [{ thinking: "disabled" }, "high", { type: "disabled" }],
      [{}, undefined, undefined],
    ] as const) {
      const llm = await startScriptedAnthropic([{ text: "ok" }]);
      try {
        const p = createProvider({ name: "a", kind: "anthropic", model: "claude-x", base_url: llm.url, max_output_tokens: 32000, ...over } as ProviderConfig, { secret: () => undefined });
        await p.chat(req(effort ? { reasoningEffort: effort } : {}), {}, signal());
        expect(llm.chatRequests()[0]!.body.thinking).toEqual(want as any);
      } finally {
        await llm.close();
      }
    }
  });

  test("responses: reasoning.effort on OpenAI's scale", async () => {
    const llm = await startScriptedResponses([{ text: "ok" }]);
    try {
      const p = createProvider({ name: "r", kind: "responses", model: "gpt-5", base_url: llm.url }, { secret: () => undefined });
      await p.chat(req({ reasoningEffort: "low" }), {}, signal());
      expect(llm.chatRequests()[0]!.body.reasoning).toEqual({ effort: "low", summary: "auto" });
    } finally {
      await llm.close();
    }
  });
});

describe("max_output_tokens: 0 auto, -1 omit, N cap", () => {
  test("chat completions omits the limit for 0 and -1; the Messages API, which requires one, uses its default", async () => {
    expect((await sent({ max_output_tokens: -1 })).max_tokens).toBeUndefined();
    expect((await sent({ max_output_tokens: 0 })).max_tokens).toBeUndefined();
    expect((await sent({ max_output_tokens: 300 })).max_tokens).toBe(300);
    const llm = await startScriptedAnthropic([{ text: "ok" }]);
    try {
      await createProvider({ name: "a", kind: "anthropic", model: "c", base_url: llm.url, max_output_tokens: -1 }, { secret: () => undefined }).chat(req(), {}, signal());
      expect(llm.chatRequests()[0]!.body.max_tokens).toBe(8192);
    } finally {
      await llm.close();
    }
  });
});
