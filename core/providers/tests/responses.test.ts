// kind = "responses" (OpenAI Responses API) over real HTTP against the
// scripted Responses server: streaming, tools, usage, replay, finish
// reasons, and the same retry/timeout behaviour as the other kinds.
import { describe, expect, test } from "bun:test";
import { startScriptedResponses } from "../../testing/scripted-llm-responses.ts";
import { chatWithRetry, providerEntries, type WaitingNotice } from "../index.ts";
import { policy, providerFixture, signal } from "./fixture.ts";

const fx = providerFixture({ name: "resp", kind: "responses", model: "gpt-5-mini", api_key_env: "RESP_KEY" }, "RESP_KEY=sk-resp");

describe("responses provider over real HTTP", () => {
  test("streams reasoning summaries, text and parallel function calls; reports usage with cached tokens; sends the Responses shape", async () => {
    fx.llm = await startScriptedResponses([
      {
        reasoning: "Two files are needed.",
        text: "Reading both.",
        toolCalls: [{ id: "call_A", name: "read_file", arguments: { path: "a.ts" } }, { id: "call_B", name: "read_file", arguments: { path: "b.ts" } }],
        usage: { input: 900, output: 70, cacheHit: 512, reasoning: 40 },
        chunkSize: 4,
      },
    ]);
    const texts: string[] = [];
    const reasoning: string[] = [];
    const r = await fx.make(fx.llm.url, { max_output_tokens: 2000 }).chat(fx.req(), { onText: (t) => texts.push(t), onReasoning: (t) => reasoning.push(t) }, signal());
    expect(r.message.content).toBe("Reading both.");
    expect(texts.length).toBeGreaterThan(1);
    expect(reasoning.join("")).toBe("Two files are needed.");
    expect(r.message.reasoning).toBe("Two files are needed.");
    expect(r.message.toolCalls).toEqual([
      { id: "call_A", name: "read_file", arguments: '{"path":"a.ts"}' },
      { id: "call_B", name: "read_file", arguments: '{"path":"b.ts"}' },
    ]);
    expect(r.finishReason).toBe("tool_calls");
    expect(r.usage).toEqual({ inputTokens: 900, outputTokens: 70, cacheHitTokens: 512, reasoningTokens: 40 });

    const sent = fx.llm.chatRequests()[0]!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.headers.authorization).toBe("Bearer sk-resp");
    expect(sent.body).toMatchObject({ model: "gpt-5-mini", instructions: "SYS", stream: true, store: false, max_output_tokens: 2000 });
    expect(sent.body.input).toEqual([{ role: "user", content: "hi" }]);
    expect(sent.body.tools).toEqual([{ type: "function", name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } }, strict: false }]);
  });

  test("replays assistant text, function calls and their outputs as input items", async () => {
    fx.llm = await startScriptedResponses([{ text: "ok" }]);
    await fx.make(fx.llm.url).chat(
      fx.req({
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: "Looking.", toolCalls: [{ id: "c1", name: "read_file", arguments: '{"path":"a"}' }] },
          { role: "tool", callId: "c1", name: "read_file", content: "A" },
        ],
      }),
      {},
      signal(),
    );
    expect(fx.llm.chatRequests()[0]!.body.input).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: "Looking." },
      { type: "function_call", call_id: "c1", name: "read_file", arguments: '{"path":"a"}' },
      { type: "function_call_output", call_id: "c1", output: "A" },
    ]);
  });

  test("response.incomplete: max_output_tokens is length, content_filter is content_filter", async () => {
    fx.llm = await startScriptedResponses([
      { text: "cut", finishReason: "max_output_tokens" },
      { toolCalls: [{ name: "read_file", arguments: '{"path": "a' }], finishReason: "max_output_tokens" },
      { text: "no", finishReason: "content_filter" },
    ]);
    const p = fx.make(fx.llm.url, { max_output_tokens: 50 });
    const a = await p.chat(fx.req(), {}, signal());
    expect([a.finishReason, a.outputLimit, a.message.content]).toEqual(["length", 50, "cut"]);
    const b = await p.chat(fx.req(), {}, signal());
    expect(b.finishReason).toBe("length");
    expect(b.message.toolCalls?.[0]?.arguments).toBe('{"path": "a');
    expect((await p.chat(fx.req(), {}, signal())).finishReason).toBe("content_filter");
  });

  test("a response.completed whose status is incomplete is treated like response.incomplete", async () => {
    fx.llm = await startScriptedResponses([
      { text: "cut", finishReason: "max_output_tokens", incompleteEvent: "response.completed" },
      { text: "no", finishReason: "content_filter", incompleteEvent: "response.completed" },
    ]);
    const p = fx.make(fx.llm.url, { max_output_tokens: 50 });
    const a = await p.chat(fx.req(), {}, signal());
    expect([a.finishReason, a.outputLimit, a.message.content]).toEqual(["length", 50, "cut"]);
    expect((await p.chat(fx.req(), {}, signal())).finishReason).toBe("content_filter");
  });

  test("thinking = disabled sends no reasoning effort; other settings still do", async () => {
    fx.llm = await startScriptedResponses([{ text: "a" }, { text: "b" }, { text: "c" }]);
    await fx.make(fx.llm.url, { thinking: "disabled", reasoning_effort: "high" }).chat(fx.req(), {}, signal());
    await fx.make(fx.llm.url, { thinking: "disabled" }).chat(fx.req({ reasoningEffort: "medium" }), {}, signal());
    await fx.make(fx.llm.url, { reasoning_effort: "high" }).chat(fx.req(), {}, signal());
    expect(fx.llm.chatRequests().map((r) => r.body.reasoning)).toEqual([undefined, undefined, { effort: "high", summary: "auto" }]);
  });

  test("store = false: reasoning items are asked for encrypted and sent back, before their function calls, on later steps", async () => {
    fx.llm = await startScriptedResponses([
      { reasoning: "Need a.ts.", toolCalls: [{ id: "call_A", name: "read_file", arguments: { path: "a.ts" } }] },
      { reasoning: "Got it.", text: "Done." },
    ]);
    const p = fx.make(fx.llm.url);
    const first = await p.chat(fx.req({ messages: [{ role: "user", content: "go" }] }), {}, signal());
    const history = [{ role: "user" as const, content: "go" }, first.message, { role: "tool" as const, callId: "call_A", name: "read_file", content: "A" }];
    const second = await p.chat(fx.req({ messages: history }), {}, signal());
    expect(second.message.content).toBe("Done.");
    const [a, b] = fx.llm.chatRequests().map((r) => r.body);
    expect([a.store, a.include]).toEqual([false, ["reasoning.encrypted_content"]]);
    expect(b.include).toEqual(["reasoning.encrypted_content"]);
    expect(b.input).toEqual([
      { role: "user", content: "go" },
      { type: "reasoning", summary: [{ type: "summary_text", text: "Need a.ts." }], encrypted_content: "enc:1:Need a.ts." },
      { type: "function_call", call_id: "call_A", name: "read_file", arguments: '{"path":"a.ts"}' },
      { type: "function_call_output", call_id: "call_A", output: "A" },
    ]);
    // A non-reasoning model is not asked for it (OpenAI refuses encrypted content there).
    await fx.llm.close();
    fx.llm = await startScriptedResponses([{ text: "x" }]);
    await fx.make(fx.llm.url, { model: "gpt-4.1" }).chat(fx.req(), {}, signal());
    expect(fx.llm.chatRequests()[0]!.body.include).toBeUndefined();
  });

  test("retries: 429, an in-stream error event, a cut stream, a stall; each names the entry and host", async () => {
    fx.llm = await startScriptedResponses([
      { kind: "error", status: 429, headers: { "retry-after-ms": "5" } },
      { text: "partial answer", streamErrorAfter: 5 },
      { text: "partial answer", cutAfter: 5 },
      { text: "partial answer", stallAfter: 5 },
      { text: "done at last" },
    ]);
    const retries: string[] = [];
    const waits: WaitingNotice[] = [];
    const r = await chatWithRetry(fx.make(fx.llm.url, { idle_timeout_seconds: 0.3 }), fx.req(), { onWaiting: (n) => waits.push(n) }, signal(), { ...policy, maxAttempts: 5 }, (n) => retries.push(n.reason));
    expect(r.message.content).toBe("done at last");
    expect(retries).toHaveLength(4);
    expect(retries[0]).toContain("HTTP 429");
    expect(retries[1]).toContain("reported an error mid-stream");
    expect(retries[2]).toContain("the stream ended before the answer was complete");
    expect(retries[3]).toContain("idle_timeout_seconds = 0.3");
    for (const m of retries) expect(m).toContain('provider "resp" (127.0.0.1:');
    expect(waits[0]?.phase).toBe("idle");
  });

  test("the answer is complete at response.completed, even on a connection that stays open", async () => {
    fx.llm = await startScriptedResponses([{ text: "complete", linger: true }]);
    const r = await fx.make(fx.llm.url, { idle_timeout_seconds: 0.3 }).chat(fx.req(), {}, signal());
    expect(r.message.content).toBe("complete");
  });

  test("a 200 that is not an event stream is not retried", async () => {
    fx.llm = await startScriptedResponses([{ kind: "raw", contentType: "text/html", body: "<html><title>Gateway</title></html>" }]);
    const err = await chatWithRetry(fx.make(fx.llm.url), fx.req(), {}, signal(), policy).catch((e) => e);
    expect(err.kind).toBe("bad_response");
    expect(err.message).toContain("content-type text/html");
    expect(fx.llm.chatRequests()).toHaveLength(1);
  });

  test("model discovery via /models; the kind is accepted by config", async () => {
    fx.llm = await startScriptedResponses([], { models: ["gpt-5", "gpt-5-mini"] });
    expect(await fx.make(fx.llm.url).listModels()).toEqual(["gpt-5", "gpt-5-mini"]);
    expect(providerEntries({ providers: [{ name: "r", kind: "responses", base_url: "https://api.openai.com/v1", model: "gpt-5" }] })[0]!.kind).toBe("responses");
  });
});
