import { describe, expect, test } from "bun:test";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import { chatWithRetry, ProviderError, type ChatRequest } from "../index.ts";
import { policy, providerFixture, signal } from "./fixture.ts";

const fx = providerFixture({ name: "claude", kind: "anthropic", model: "claude-test", api_key_env: "ANT_KEY" }, "ANT_KEY=sk-ant-dotenv");
const make = fx.make;
const req = (over: Partial<ChatRequest> = {}) => fx.req({ toolName: "edit_file", ...over });

describe("anthropic provider over real HTTP", () => {
  test("message_delta usage is cumulative: it adds what message_start lacked and never lowers what it said", async () => {
    const ev = (name: string, o: unknown) => `event: ${name}\ndata: ${JSON.stringify(o)}\n\n`;
    const answer = (start: unknown, delta: unknown) =>
      [
        ev("message_start", { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], usage: start } }),
        ev("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
        ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } }),
        ev("content_block_stop", { type: "content_block_stop", index: 0 }),
        ev("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: delta }),
        ev("message_stop", { type: "message_stop" }),
      ].join("");
    fx.llm = await startScriptedAnthropic([
      { kind: "raw", contentType: "text/event-stream", body: answer({ input_tokens: 500, cache_read_input_tokens: 300, output_tokens: 1 }, { input_tokens: 0, output_tokens: 7 }) },
      { kind: "raw", contentType: "text/event-stream", body: answer({ input_tokens: 0, output_tokens: 1 }, { input_tokens: 40, cache_creation_input_tokens: 60, output_tokens: 9 }) },
    ]);
    const p = make(fx.llm!.url);
    expect((await p.chat(req(), {}, signal())).usage).toEqual({ inputTokens: 800, outputTokens: 7, cacheHitTokens: 300 });
    expect((await p.chat(req(), {}, signal())).usage).toEqual({ inputTokens: 100, outputTokens: 9, cacheHitTokens: 0, cacheWriteTokens: 60 });
  });

  test("streams thinking, text and a tool_use whose JSON arrives in pieces; sends the Messages API shape", async () => {
    fx.llm = await startScriptedAnthropic([
      { reasoning: "Thinking it through.", signature: "SIG123", text: "Editing.", toolCalls: [{ id: "toolu_1", name: "edit_file", arguments: { path: "a/b/c.ts", old: "x", new: "y" } }], usage: { input: 900, cacheHit: 600, output: 42 }, chunkSize: 5 },
    ]);
    const reasoning: string[] = [];
    const r = await make(fx.llm!.url).chat(req(), { onReasoning: (t) => reasoning.push(t) }, signal());
    expect(r.message.content).toBe("Editing.");
    expect(r.message.reasoning).toBe("Thinking it through.");
    expect(reasoning.length).toBeGreaterThan(1);
    expect(r.message.thinkingBlocks).toEqual([{ type: "thinking", thinking: "Thinking it through.", signature: "SIG123" }]);
    expect(r.message.toolCalls).toEqual([{ id: "toolu_1", name: "edit_file", arguments: JSON.stringify({ path: "a/b/c.ts", old: "x", new: "y" }) }]);
    expect(r.usage).toEqual({ inputTokens: 900, outputTokens: 42, cacheHitTokens: 600 });
    expect(r.finishReason).toBe("tool_calls");

    const sent = fx.llm!.chatRequests()[0]!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["x-api-key"]).toBe("sk-ant-dotenv");
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent.body.model).toBe("claude-test");
    expect(sent.body.stream).toBe(true);
    expect(sent.body.max_tokens).toBeGreaterThan(0);
    expect(sent.body.system).toEqual([{ type: "text", text: "SYS", cache_control: { type: "ephemeral" } }]);
    expect(sent.body.tools).toEqual([{ name: "edit_file", description: "Edit", input_schema: { type: "object", properties: { path: { type: "string" } } }, cache_control: { type: "ephemeral" } }]);
    expect(sent.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }]);
  });

  test("thinking blocks, tool_use and tool_result are replayed; consecutive user turns merge", async () => {
    fx.llm = await startScriptedAnthropic([{ text: "done" }]);
    await make(fx.llm!.url).chat(
      req({
        messages: [
          { role: "user", content: "<project-instructions>x</project-instructions>" },
          { role: "user", content: "go" },
          { role: "assistant", content: "", reasoning: "t", thinkingBlocks: [{ type: "thinking", thinking: "t", signature: "S" }, { type: "redacted_thinking", data: "R" }], toolCalls: [{ id: "tu1", name: "edit_file", arguments: '{"path":"a"}' }] },
          { role: "tool", callId: "tu1", name: "edit_file", content: "boom", isError: true },
          { role: "user", content: "next" },
        ],
      }),
      {},
      signal(),
    );
    expect(fx.llm!.chatRequests()[0]!.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "<project-instructions>x</project-instructions>" }, { type: "text", text: "go", cache_control: { type: "ephemeral" } }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "t", signature: "S" },
          { type: "redacted_thinking", data: "R" },
          { type: "tool_use", id: "tu1", name: "edit_file", input: { path: "a" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "tu1", content: "boom", is_error: true }, { type: "text", text: "next", cache_control: { type: "ephemeral" } }] },
    ]);
  });

  test("bearer auth, static headers and extra_body", async () => {
    fx.llm = await startScriptedAnthropic([{ text: "ok" }]);
    await make(`${fx.llm!.url}/v1`, { auth: "bearer", headers: { "X-Gateway": "g1" }, extra_body: { thinking: { type: "enabled", budget_tokens: 2048 }, model: "evil", stream: false } }).chat(req(), {}, signal());
    const sent = fx.llm!.chatRequests()[0]!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers.authorization).toBe("Bearer sk-ant-dotenv");
    expect(sent.headers["x-api-key"]).toBeUndefined();
    expect(sent.headers["x-gateway"]).toBe("g1");
    expect(sent.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(sent.body.model).toBe("claude-test");
    expect(sent.body.stream).toBe(true);
  });

  test("401 names the api_key_env; 529 and overloaded events are retried; cut streams are retried", async () => {
    fx.llm = await startScriptedAnthropic([{ kind: "error", status: 401, message: "invalid x-api-key" }]);
    const err = await chatWithRetry(make(fx.llm!.url), req(), {}, signal(), policy).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toContain("check api_key_env ANT_KEY");
    await fx.llm!.close();

    let read!: () => void;
    const cutWhen = new Promise<void>((r) => (read = r));
    fx.llm = await startScriptedAnthropic([
      { kind: "error", status: 529, headers: { "retry-after": "0" } },
      { text: "half", streamErrorAfter: 3 },
      // frames: message_start, ping, text block (start, "look", stop), tool_use start, first input piece; the reset (index 7)
      // waits until the client has read the text, so it cannot overtake unread frames and pass for a refused request.
      { text: "look", toolCalls: [{ name: "edit_file", arguments: { path: "cut" } }], cutAfter: 7, cutMode: "reset", cutWhen },
      { text: "complete answer" },
    ]);
    const retries: string[] = [];
    const r = await chatWithRetry(make(fx.llm!.url), req(), { onText: () => read() }, signal(), { ...policy, maxAttempts: 4 }, (n) => retries.push(n.reason));
    expect(r.message.content).toBe("complete answer");
    expect(r.message.toolCalls).toBeUndefined();
    expect(retries).toHaveLength(3);
    expect(retries[0]).toContain("HTTP 529");
    expect(retries[1]).toContain("overloaded_error");
    expect(retries[2]).toMatch(/stream/);
  });

  test("model discovery via /v1/models", async () => {
    fx.llm = await startScriptedAnthropic([], { models: ["claude-a", "claude-b"] });
    expect(await make(fx.llm!.url).listModels()).toEqual(["claude-a", "claude-b"]);
    expect(fx.llm!.requests[0]!.path).toBe("/v1/models");
    expect(fx.llm!.requests[0]!.headers["x-api-key"]).toBe("sk-ant-dotenv");
  });
});
