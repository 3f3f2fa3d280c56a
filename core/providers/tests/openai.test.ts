import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../errors.ts";
import { homePaths } from "../../home.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { chatWithRetry, providerEntries, ProviderError } from "../index.ts";
import { policy, providerFixture, signal } from "./fixture.ts";

const fx = providerFixture({ name: "t", kind: "openai", model: "m-1", api_key_env: "TEST_KEY" }, "TEST_KEY=sk-from-dotenv");
const make = fx.make;
const req = fx.req;

describe("openai provider over real HTTP", () => {
  test("streams reasoning, text and tool calls split across chunks; reports usage with cache hits", async () => {
    const args = { path: "src/some/long/path/name.ts", note: "x".repeat(50) };
    fx.llm = await startScriptedOpenAI([
      {
        reasoning: "Let me think about it carefully.",
        text: "Reading the file now.",
        toolCalls: [{ id: "call_A", name: "read_file", arguments: args }, { id: "call_B", name: "read_file", arguments: { path: "b" } }],
        usage: { input: 1200, output: 80, cacheHit: 1024, reasoning: 30 },
        chunkSize: 4,
      },
    ]);
    const texts: string[] = [];
    const reasoning: string[] = [];
    const r = await make(fx.llm!.url).chat(req(), { onText: (t) => texts.push(t), onReasoning: (t) => reasoning.push(t) }, signal());
    expect(r.message.content).toBe("Reading the file now.");
    expect(r.message.reasoning).toBe("Let me think about it carefully.");
    expect(texts.length).toBeGreaterThan(1);
    expect(reasoning.join("")).toBe("Let me think about it carefully.");
    expect(r.message.toolCalls).toEqual([
      { id: "call_A", name: "read_file", arguments: JSON.stringify(args) },
      { id: "call_B", name: "read_file", arguments: JSON.stringify({ path: "b" }) },
    ]);
    expect(r.finishReason).toBe("tool_calls");
    expect(r.usage).toEqual({ inputTokens: 1200, outputTokens: 80, cacheHitTokens: 1024, reasoningTokens: 30 });

    const sent = fx.llm!.chatRequests()[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer sk-from-dotenv");
    expect(sent.body.model).toBe("m-1");
    expect(sent.body.stream).toBe(true);
    expect(sent.body.stream_options).toEqual({ include_usage: true });
    expect(sent.body.messages).toEqual([{ role: "system", content: "SYS" }, { role: "user", content: "hi" }]);
    expect(sent.body.tools).toEqual([{ type: "function", function: { name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } } } }]);
  });

  test("DeepSeek-style usage on the finish chunk is read too", async () => {
    fx.llm = await startScriptedOpenAI([{ text: "ok", usage: { input: 300, cacheHit: 256, output: 9 }, usageStyle: "deepseek" }]);
    const r = await make(fx.llm!.url).chat(req(), {}, signal());
    expect(r.usage).toEqual({ inputTokens: 300, outputTokens: 9, cacheHitTokens: 256 });
    expect(r.message.content).toBe("ok");
  });

  test("replays assistant tool calls with reasoning_content and tool results", async () => {
    fx.llm = await startScriptedOpenAI([{ text: "ok" }]);
    await make(fx.llm!.url).chat(
      req({
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: "", reasoning: "think", toolCalls: [{ id: "c1", name: "read_file", arguments: '{"path":"a"}' }] },
          { role: "tool", callId: "c1", name: "read_file", content: "A" },
        ],
      }),
      {},
      signal(),
    );
    expect(fx.llm!.chatRequests()[0]!.body.messages.slice(1)).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } }], reasoning_content: "think" },
      { role: "tool", tool_call_id: "c1", content: "A" },
    ]);
  });

  test("extra_body is merged but never overrides model/messages/tools/stream; static headers are sent", async () => {
    fx.llm = await startScriptedOpenAI([{ text: "ok" }]);
    const p = make(fx.llm!.url, {
      extra_body: { enable_thinking: true, model: "evil", messages: [], stream: false, tools: [], nested: { a: 1 } },
      headers: { "HTTP-Referer": "https://example.test", "X-Title": "reasonix-tests" },
    });
    await p.chat(req(), {}, signal());
    const sent = fx.llm!.chatRequests()[0]!;
    expect(sent.body.enable_thinking).toBe(true);
    expect(sent.body.nested).toEqual({ a: 1 });
    expect(sent.body.model).toBe("m-1");
    expect(sent.body.stream).toBe(true);
    expect(sent.body.messages.length).toBe(2);
    expect(sent.body.tools.length).toBe(1);
    expect(sent.headers["http-referer"]).toBe("https://example.test");
    expect(sent.headers["x-title"]).toBe("reasonix-tests");
  });

  test("extra_body null values are rejected with the key named", () => {
    const bad = { providers: [{ name: "p", kind: "openai", base_url: "http://127.0.0.1:1", model: "m", extra_body: { thinking: { type: null } } }] };
    expect(() => providerEntries(bad, "cfg.toml")).toThrow(ConfigError);
    expect(() => providerEntries(bad, "cfg.toml")).toThrow(/providers\[0\] \("p"\)\.extra_body\.thinking\.type: null values are not allowed/);
  });

  test("full_url sends to base_url as-is", async () => {
    fx.llm = await startScriptedOpenAI([{ text: "ok" }], { chatPaths: ["/gateway/custom/chat"] });
    const r = await make(`${fx.llm!.origin}/gateway/custom/chat`, { full_url: true }).chat(req(), {}, signal());
    expect(r.message.content).toBe("ok");
    expect(fx.llm!.requests).toHaveLength(1);
    expect(fx.llm!.requests[0]!.path).toBe("/gateway/custom/chat");
    expect(fx.llm!.requests[0]!.body.model).toBe("m-1");
  });

  test("model discovery via /models and via models_url", async () => {
    fx.llm = await startScriptedOpenAI([], { models: ["alpha", "beta"] });
    expect(await make(fx.llm!.url).listModels()).toEqual(["alpha", "beta"]);
    expect(fx.llm!.requests[0]!.path).toBe("/v1/models");
    expect(fx.llm!.requests[0]!.headers.authorization).toBe("Bearer sk-from-dotenv");
    expect(await make(`${fx.llm!.origin}/elsewhere`, { models_url: `${fx.llm!.origin}/catalog/models` }).listModels()).toEqual(["alpha", "beta"]);
    expect(fx.llm!.requests[1]!.path).toBe("/catalog/models");
  });

  test("the key comes only from $REASONIX_HOME/.env, never the shell environment", async () => {
    fx.llm = await startScriptedOpenAI([{ text: "ok" }]);
    process.env.TEST_KEY = "sk-from-shell";
    process.env.OTHER_KEY = "sk-from-shell";
    try {
      await make(fx.llm!.url).chat(req(), {}, signal());
      expect(fx.llm!.chatRequests()[0]!.headers.authorization).toBe("Bearer sk-from-dotenv");
      const p = make(fx.llm!.url, { api_key_env: "OTHER_KEY" });
      const err = await p.chat(req(), {}, signal()).catch((e) => e);
      expect(err).toBeInstanceOf(ProviderError);
      // The real file, never the literal "$REASONIX_HOME".
      expect(err.message).toContain(`api_key_env OTHER_KEY has no value in ${homePaths().dotenv}`);
      expect(fx.llm!.chatRequests().length).toBe(1);
    } finally {
      delete process.env.TEST_KEY;
      delete process.env.OTHER_KEY;
    }
  });

  test("401 says which api_key_env to check and is not retried", async () => {
    fx.llm = await startScriptedOpenAI([{ kind: "error", status: 401, message: "Incorrect API key provided" }, { text: "never" }]);
    const err = await chatWithRetry(make(fx.llm!.url), req(), {}, signal(), policy).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.kind).toBe("auth");
    expect(err.message).toContain("check api_key_env TEST_KEY");
    expect(err.message).toContain("Incorrect API key provided");
    expect(fx.llm!.chatRequests().length).toBe(1);
  });

  test("429 honours Retry-After, then succeeds", async () => {
    fx.llm = await startScriptedOpenAI([{ kind: "error", status: 429, headers: { "retry-after": "1" } }, { text: "after wait" }]);
    const retries: { delayMs: number }[] = [];
    const t0 = Date.now();
    const r = await chatWithRetry(make(fx.llm!.url), req(), {}, signal(), policy, (n) => retries.push(n));
    expect(r.message.content).toBe("after wait");
    expect(retries).toHaveLength(1);
    expect(retries[0]!.delayMs).toBe(1000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
  });

  test("5xx retries are bounded", async () => {
    fx.llm = await startScriptedOpenAI([503, 502, 500, 500].map((status) => ({ kind: "error" as const, status })));
    const err = await chatWithRetry(make(fx.llm!.url), req(), {}, signal(), policy).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toContain("gave up after 3 attempts");
    expect(fx.llm!.chatRequests().length).toBe(3);
  });

  test("a Retry-After longer than we wait surfaces at once", async () => {
    fx.llm = await startScriptedOpenAI([{ kind: "error", status: 429, headers: { "retry-after": "3600" } }, { text: "never" }]);
    const err = await chatWithRetry(make(fx.llm!.url), req(), {}, signal(), policy).catch((e) => e);
    expect(err.message).toContain("asks to wait 3600 s");
    expect(fx.llm!.chatRequests().length).toBe(1);
  });

  test("a stream cut mid tool call (clean end or socket reset) is retried and yields one complete answer", async () => {
    for (const cutMode of ["end", "reset"] as const) {
      // The cut waits until the client has read the opening text: a reset sent
      // earlier could overtake the unread frames and look like a refused request.
      let read!: () => void;
      const cutWhen = new Promise<void>((r) => (read = r));
      fx.llm = await startScriptedOpenAI([
        // frames: role, "lo", "ok", tool-call pieces…; the cut (index 5) falls inside the tool call
        { text: "look", toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "first-attempt" } }], cutAfter: 5, cutMode, chunkSize: 2, cutWhen },
        { toolCalls: [{ id: "c2", name: "read_file", arguments: { path: "second-attempt" } }] },
      ]);
      const retries: string[] = [];
      const r = await chatWithRetry(make(fx.llm!.url), req(), { onText: () => read() }, signal(), policy, (n) => retries.push(n.reason));
      expect(r.message.toolCalls).toEqual([{ id: "c2", name: "read_file", arguments: '{"path":"second-attempt"}' }]);
      expect(retries).toHaveLength(1);
      expect(retries[0]).toMatch(/stream/);
      expect(fx.llm!.chatRequests().length).toBe(2);
      await fx.llm!.close();
      fx.llm = undefined;
    }
  });

  test("an error event inside the stream is retried", async () => {
    fx.llm = await startScriptedOpenAI([{ text: "partial answer that breaks", streamErrorAfter: 2 }, { text: "whole answer" }]);
    const r = await chatWithRetry(make(fx.llm!.url), req(), {}, signal(), policy);
    expect(r.message.content).toBe("whole answer");
    expect(fx.llm!.chatRequests().length).toBe(2);
  });
});
