// Provider conformance against a third-party mock LLM server
// (@copilotkit/aimock): the openai and anthropic kinds over its wire formats,
// its error injection and its chaos options. Faults aimock cannot produce
// (stalls after headers, non-SSE 200s, clean EOF without a terminator) are in
// faults.test.ts against the project's own scripted server.
import { describe, expect, test } from "bun:test";
import { chatWithRetry, type ChatRequest } from "../index.ts";
import { aimockBase, aimockServer } from "./aimock-server.ts";
import { policy, providerFixture, signal } from "./fixture.ts";

const mock = aimockServer();

const ask = (text: string, over: Partial<ChatRequest> = {}): ChatRequest => ({
  system: "SYS",
  tools: [{ name: "read_file", description: "Read", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
  messages: [{ role: "user", content: text }],
  ...over,
});

const LONG = "This long answer will be cut off in the middle and never finished by the first attempt.";

for (const kind of ["openai", "anthropic", "responses"] as const) {
  const fx = providerFixture({ name: "aimock", kind, model: kind === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o", api_key_env: "MOCK_KEY" }, "MOCK_KEY=sk-mock");
  const make = (extra = {}) => fx.make(aimockBase(mock, kind), extra);

  describe(`${kind} kind against aimock`, () => {
    test("text streams in deltas and ends as stop", async () => {
      mock.onMessage("greet", { content: "Hi there, nice to meet you!" });
      const deltas: string[] = [];
      const r = await make().chat(ask("greet me"), { onText: (t) => deltas.push(t) }, signal());
      expect(r.message.content).toBe("Hi there, nice to meet you!");
      expect(deltas.join("")).toBe("Hi there, nice to meet you!");
      expect(r.finishReason).toBe("stop");
    });

    test("a tool call and parallel tool calls", async () => {
      mock.onMessage("one file", { toolCalls: [{ name: "read_file", arguments: { path: "a.ts" } }] });
      mock.onMessage("two files", { toolCalls: [{ name: "read_file", arguments: { path: "a.ts" } }, { name: "read_file", arguments: { path: "b.ts" } }] });
      const one = await make().chat(ask("read one file"), {}, signal());
      expect(one.finishReason).toBe("tool_calls");
      expect(one.message.toolCalls?.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([["read_file", { path: "a.ts" }]]);
      const two = await make().chat(ask("read two files"), {}, signal());
      expect(two.message.toolCalls?.map((c) => JSON.parse(c.arguments).path)).toEqual(["a.ts", "b.ts"]);
      expect(new Set(two.message.toolCalls?.map((c) => c.id)).size).toBe(2);
    });

    test("reasoning arrives as reasoning deltas, apart from the answer", async () => {
      mock.onMessage("think", { content: "The answer is 4.", reasoning: "2 plus 2 is 4." });
      const reasoning: string[] = [];
      const r = await make().chat(ask("think about 2+2"), { onReasoning: (t) => reasoning.push(t) }, signal());
      expect(r.message.content).toBe("The answer is 4.");
      expect(r.message.reasoning).toBe("2 plus 2 is 4.");
      expect(reasoning.join("")).toBe("2 plus 2 is 4.");
    });

    test("usage is reported", async () => {
      mock.onMessage("count", { content: "counted", usage: { prompt_tokens: 123, completion_tokens: 45, total_tokens: 168 } } as any);
      const r = await make().chat(ask("count tokens"), {}, signal());
      expect(r.usage.inputTokens).toBe(123);
      expect(r.usage.outputTokens).toBe(45);
    });

    test("429 with Retry-After is waited for and retried", async () => {
      mock.onMessage("busy", { content: "finally" });
      mock.nextRequestError(429, { message: "Rate limited", type: "rate_limit_error" });
      const retries: { delayMs: number; reason: string }[] = [];
      const r = await chatWithRetry(make(), ask("busy day"), {}, signal(), policy, (n) => retries.push(n));
      expect(r.message.content).toBe("finally");
      expect(retries).toHaveLength(1);
      expect(retries[0]!.delayMs).toBe(1000);
      expect(retries[0]!.reason).toContain("HTTP 429");
      expect(retries[0]!.reason).toContain('provider "aimock" (127.0.0.1:');
    });

    test("a 5xx is retried", async () => {
      mock.onMessage("flaky", { content: "recovered" });
      mock.nextRequestError(503, { message: "upstream unavailable", type: "server_error" });
      const retries: string[] = [];
      const r = await chatWithRetry(make(), ask("flaky thing"), {}, signal(), policy, (n) => retries.push(n.reason));
      expect(r.message.content).toBe("recovered");
      expect(retries[0]).toContain("HTTP 503");
    });

    test("a mid-stream drop: the attempt fails, the retry succeeds, the dropped text is discarded", async () => {
      mock.on({ userMessage: "drop", sequenceIndex: 0 } as any, { content: LONG }, { truncateAfterChunks: 3 } as any);
      mock.on({ userMessage: "drop", sequenceIndex: 1 } as any, { content: "whole answer" });
      const failed: number[] = [];
      const r = await chatWithRetry(make(), ask("drop it"), {}, signal(), policy, { onAttemptFailed: (n) => failed.push(n.attempt) });
      expect(r.message.content).toBe("whole answer");
      expect(failed).toEqual([1]);
    });

    test("chaos: malformed JSON with HTTP 200 is a non-stream answer: named once, not retried blindly", async () => {
      mock.addFixture({ match: { userMessage: "garble" }, response: { content: "never" }, chaos: { malformedRate: 1 } } as any);
      const failed: number[] = [];
      const err = await chatWithRetry(make(), ask("garble it"), {}, signal(), policy, { onAttemptFailed: (n) => failed.push(n.attempt) }).catch((e) => e);
      expect(err.kind).toBe("bad_response");
      expect(err.message).toContain("HTTP 200 with content-type application/json instead of an event stream");
      expect(failed).toEqual([1]);
    });

    for (const [name, chaos] of [
      ["a dropped request (500)", { dropRate: 1 }],
      ["a disconnect", { disconnectRate: 1 }],
      ["a rate limit", { rateLimitRate: 1 }],
    ] as const) {
      test(`chaos: ${name} on the first attempt is retried`, async () => {
        mock.addFixture({ match: { userMessage: "chaos", sequenceIndex: 0 }, response: { content: "never" }, chaos } as any);
        mock.addFixture({ match: { userMessage: "chaos", sequenceIndex: 1 }, response: { content: "calm again" } } as any);
        const retries: string[] = [];
        const r = await chatWithRetry(make(), ask("chaos please"), {}, signal(), policy, (n) => retries.push(n.reason));
        expect(r.message.content).toBe("calm again");
        expect(retries).toHaveLength(1);
        expect(retries[0]).not.toMatch(/verbose|fetch\(\)/);
      });
    }

    test("chaos latency past first_byte_timeout_seconds is a named, retried stall", async () => {
      mock.addFixture({ match: { userMessage: "slow", sequenceIndex: 0 }, response: { content: "late" }, chaos: { latencyMs: 1500 } } as any);
      mock.addFixture({ match: { userMessage: "slow", sequenceIndex: 1 }, response: { content: "on time" } } as any);
      const retries: string[] = [];
      const r = await chatWithRetry(make({ first_byte_timeout_seconds: 0.4 }), ask("slow start"), {}, signal(), policy, (n) => retries.push(n.reason));
      expect(r.message.content).toBe("on time");
      expect(retries[0]).toContain("first_byte_timeout_seconds = 0.4");
    });
  });
}
