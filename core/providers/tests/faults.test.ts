// Faults a third-party endpoint produces, for both wire formats, over real
// HTTP on 127.0.0.1: stalls, non-SSE 200s, malformed chunks, resets, and the
// finish reasons that are not a plain "stop". Timeouts are configured small.
import { describe, expect, test } from "bun:test";
import { freePort } from "../../testing/free-port.ts";
import { startScriptedOpenAI, type ScriptedServer, type ScriptStep } from "../../testing/scripted-llm.ts";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import { chatWithRetry, ProviderError, type WaitingNotice } from "../index.ts";
import { policy, providerFixture, signal } from "./fixture.ts";

const kinds = [
  { kind: "openai", start: startScriptedOpenAI, key: "OAI_KEY" },
  { kind: "anthropic", start: startScriptedAnthropic, key: "ANT_KEY" },
] as const;

for (const k of kinds) {
  const fx = providerFixture({ name: "fault", kind: k.kind, model: "m-1", api_key_env: k.key }, `${k.key}=sk-test`);
  const start = async (steps: ScriptStep[]): Promise<ScriptedServer> => (fx.llm = await k.start(steps));

  describe(`${k.kind}: stalls become retryable errors naming the setting`, () => {
    test("headers and one chunk, then silence: idle_timeout_seconds ends the attempt, waiting notices come first, the retry succeeds", async () => {
      const llm = await start([{ text: "This long answer will stall", chunkSize: 4, stallAfter: 3 }, { text: "Complete." }]);
      const p = fx.make(llm.url, { idle_timeout_seconds: 0.4 });
      const waits: WaitingNotice[] = [];
      const retries: string[] = [];
      const r = await chatWithRetry(p, fx.req(), { onWaiting: (n) => waits.push(n) }, signal(), policy, { onRetry: (n) => retries.push(n.reason) });
      expect(r.message.content).toBe("Complete.");
      expect(retries).toHaveLength(1);
      expect(retries[0]).toContain("idle_timeout_seconds = 0.4");
      expect(retries[0]).toContain('provider "fault" (127.0.0.1:');
      expect(waits.length).toBeGreaterThanOrEqual(1);
      expect(waits[0]).toMatchObject({ phase: "idle", timeoutSeconds: 0.4, setting: "idle_timeout_seconds" });
    });

    test("headers, then nothing: first_byte_timeout_seconds ends the attempt; the last error names it", async () => {
      const llm = await start([{ text: "x", stallAfter: 0 }, { text: "x", stallAfter: 0 }]);
      const p = fx.make(llm.url, { first_byte_timeout_seconds: 0.3 });
      const waits: WaitingNotice[] = [];
      const err = await chatWithRetry(p, fx.req(), { onWaiting: (n) => waits.push(n) }, signal(), { ...policy, maxAttempts: 2 }).catch((e) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.kind).toBe("stalled");
      expect(err.message).toContain("first_byte_timeout_seconds = 0.3");
      expect(err.message).toContain("gave up after 2 attempts");
      expect(waits[0]).toMatchObject({ phase: "first_byte", setting: "first_byte_timeout_seconds" });
    });

    test("a slow first byte within the limit only produces waiting notices", async () => {
      const llm = await start([{ text: "late but fine", delayMs: 500 }]);
      const waits: WaitingNotice[] = [];
      const r = await fx.make(llm.url, { first_byte_timeout_seconds: 5 }).chat(fx.req(), { onWaiting: (n) => waits.push(n) }, signal());
      expect(r.message.content).toBe("late but fine");
      expect(waits).toEqual([]); // notices start at 10 s (or half the timeout)
    });
  });

  describe(`${k.kind}: responses that are not an event stream`, () => {
    test("an HTML page with HTTP 200 is not retried and names the content-type and page", async () => {
      const llm = await start([{ kind: "raw", contentType: "text/html; charset=utf-8", body: "<html><head><title>Sign in - Corp Proxy</title></head><body>login</body></html>" }]);
      const err = await chatWithRetry(fx.make(llm.url), fx.req(), {}, signal(), policy).catch((e) => e);
      expect(err.kind).toBe("bad_response");
      expect(err.message).toContain("HTTP 200 with content-type text/html instead of an event stream");
      expect(err.message).toContain('"Sign in - Corp Proxy"');
      expect(err.message).toContain("check base_url");
      // The example keeps the entry's scheme and port (an http base_url is not told https).
      expect(err.message).toContain(`e.g. ${new URL(llm.url).origin}/v1`);
      expect(llm.chatRequests()).toHaveLength(1);
    });

    test("plain JSON with HTTP 200 (a non-streaming endpoint) names the content-type and its message", async () => {
      const llm = await start([{ kind: "raw", contentType: "application/json", body: JSON.stringify({ error: { message: "streaming is not enabled for this key" } }) }]);
      const err = await chatWithRetry(fx.make(llm.url), fx.req(), {}, signal(), policy).catch((e) => e);
      expect(err.kind).toBe("bad_response");
      expect(err.message).toContain("content-type application/json");
      expect(err.message).toContain("streaming is not enabled for this key");
      expect(llm.chatRequests()).toHaveLength(1);
    });
  });

  describe(`${k.kind}: a server that does not close after the answer`, () => {
    test("a complete answer on a lingering connection is accepted, not reported as a stall", async () => {
      const llm = await start([{ text: "complete", usage: { input: 7, output: 3 }, linger: true, noTerminator: true }]);
      const r = await fx.make(llm.url, { idle_timeout_seconds: 0.3 }).chat(fx.req(), {}, signal());
      expect(r.message.content).toBe("complete");
      expect(r.usage.outputTokens).toBe(3);
    });
  });

  describe(`${k.kind}: mislabelled streams`, () => {
    test("an event stream sent as application/json still streams (it starts like SSE)", async () => {
      const llm = await start([{ text: "streamed anyway", contentType: "application/json" }]);
      const r = await fx.make(llm.url).chat(fx.req(), {}, signal());
      expect(r.message.content).toBe("streamed anyway");
    });
  });

  describe(`${k.kind}: broken streams`, () => {
    test("a malformed chunk is a retryable cut stream", async () => {
      const llm = await start([{ text: "half an answer", malformedAfter: 3 }, { text: "whole" }]);
      const retries: string[] = [];
      const r = await chatWithRetry(fx.make(llm.url), fx.req(), {}, signal(), policy, (n) => retries.push(n.reason));
      expect(r.message.content).toBe("whole");
      expect(retries[0]).toMatch(/malformed stream data/);
    });

    test("a clean EOF before the end-of-answer marker is retried", async () => {
      const llm = await start([{ text: "half an answer", cutAfter: 2 }, { text: "whole" }]);
      const retries: string[] = [];
      const r = await chatWithRetry(fx.make(llm.url), fx.req(), {}, signal(), policy, (n) => retries.push(n.reason));
      expect(r.message.content).toBe("whole");
      expect(retries[0]).toContain("the stream ended before the answer was complete");
    });

    test("a connection reset mid-answer names the host and no runtime internals", async () => {
      const llm = await start([{ text: "half an answer", cutAfter: 4, cutMode: "reset" }, { text: "whole" }]);
      const retries: string[] = [];
      const r = await chatWithRetry(fx.make(llm.url), fx.req(), {}, signal(), policy, (n) => retries.push(n.reason));
      expect(r.message.content).toBe("whole");
      expect(retries[0]).toContain('provider "fault" (127.0.0.1:');
      expect(retries[0]).not.toMatch(/verbose|fetch\(\)|node:internal|at .*\.ts:\d+/);
    });

    test("nothing listening: the message names the entry, the host and the next step", async () => {
      const port = await freePort();
      const err = await fx.make(`http://127.0.0.1:${port}/v1`).chat(fx.req(), {}, signal()).catch((e) => e);
      expect(err.kind).toBe("network");
      expect(err.message).toContain(`cannot reach provider "fault" (127.0.0.1:${port})`);
      expect(err.message).toContain("check base_url");
      expect(err.message).not.toMatch(/verbose|fetch\(\)/);
    });

    test("HTTP errors name the entry, the host and the status", async () => {
      const llm = await start([{ kind: "error", status: 404, message: "model not found" }]);
      const err = await fx.make(llm.url).chat(fx.req(), {}, signal()).catch((e) => e);
      expect(err.message).toContain(`provider "fault" (127.0.0.1:`);
      expect(err.message).toContain("HTTP 404");
      expect(err.message).toContain("check base_url and model");
    });
  });
}

describe("finish reasons on the wire", () => {
  const oai = providerFixture({ name: "fr", kind: "openai", model: "m", api_key_env: "K" }, "K=sk");
  test("openai: length (with and without a tool call) and content_filter are reported as such", async () => {
    oai.llm = await startScriptedOpenAI([
      { text: "cut", finishReason: "length" },
      { toolCalls: [{ name: "read_file", arguments: '{"path": "a' }], finishReason: "length" },
      { text: "filtered", finishReason: "content_filter" },
    ]);
    const p = oai.make(oai.llm.url, { max_output_tokens: 64 });
    const a = await p.chat(oai.req(), {}, signal());
    expect([a.finishReason, a.outputLimit]).toEqual(["length", 64]);
    const b = await p.chat(oai.req(), {}, signal());
    expect(b.finishReason).toBe("length");
    expect(b.message.toolCalls?.[0]?.arguments).toBe('{"path": "a');
    expect((await p.chat(oai.req(), {}, signal())).finishReason).toBe("content_filter");
  });
});

describe("finish reasons on the wire (anthropic)", () => {
  const ant = providerFixture({ name: "fr", kind: "anthropic", model: "m", api_key_env: "K" }, "K=sk");
  test("anthropic: max_tokens is length (even with a tool call), refusal is refusal", async () => {
    ant.llm = await startScriptedAnthropic([
      { text: "cut", finishReason: "max_tokens" },
      { toolCalls: [{ name: "read_file", arguments: '{"path": "a' }], finishReason: "max_tokens" },
      { text: "I can't help with that.", finishReason: "refusal" },
    ]);
    const p = ant.make(ant.llm.url);
    const a = await p.chat(ant.req(), {}, signal());
    expect([a.finishReason, a.outputLimit]).toEqual(["length", 8192]);
    expect((await p.chat(ant.req(), {}, signal())).finishReason).toBe("length");
    expect((await p.chat(ant.req(), {}, signal())).finishReason).toBe("refusal");
  });
});

