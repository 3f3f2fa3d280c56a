// The SSE parser behind the openai and anthropic kinds (sse.ts), and the
// Chat Completions stream read without the SDK (issue 35): events cut at
// every byte, the three line endings, a last event without its blank line.
import { describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SseParser } from "../sse.ts";
import { chatWithRetry } from "../index.ts";
import { policy, providerFixture, signal } from "./fixture.ts";

const parseAll = (pieces: string[], end = true) => {
  const got: [string, string][] = [];
  const p = new SseParser((event, data) => void got.push([event, data]));
  for (const x of pieces) p.push(x);
  if (end) p.end();
  return got;
};

describe("SseParser", () => {
  const text = ': comment\r\nevent: delta\r\ndata: {"a":1}\r\n\r\ndata:no space\rdata: second line\r\rid: 7\nretry: 10\ndata: {"b":2}\n\nevent: ping\n\n';
  const want: [string, string][] = [
    ["delta", '{"a":1}'],
    ["message", "no space\nsecond line"],
    ["message", '{"b":2}'],
  ];

  test("CRLF, CR and LF lines; comments and other fields skipped; an event without data is not dispatched", () => {
    expect(parseAll([text])).toEqual(want);
  });

  test("the same events whatever the text is cut at (every split point, and one character at a time)", () => {
    for (let i = 0; i <= text.length; i++) expect(parseAll([text.slice(0, i), text.slice(i)])).toEqual(want);
    expect(parseAll([...text])).toEqual(want);
  });

  test("a last event the server did not end with a blank line counts at the end, not before", () => {
    expect(parseAll(['data: {"x":1}\n\ndata: {"y":2}'], false)).toEqual([["message", '{"x":1}']]);
    expect(parseAll(['data: {"x":1}\n\ndata: {"y":2}'])).toEqual([["message", '{"x":1}'], ["message", '{"y":2}']]);
    expect(parseAll(['data: {"y":2}\r'])).toEqual([["message", '{"y":2}']]);
  });

  test("a callback that returns true stops the parser: nothing after that event is read", () => {
    const got: string[] = [];
    const p = new SseParser((_e, data) => (got.push(data), data === "[DONE]"));
    expect(p.push("data: a\n\ndata: [DONE]\n\ndata: b\n\n")).toBe(false);
    expect(got).toEqual(["a", "[DONE]"]);
  });
});

describe("openai kind: the stream read without the SDK", () => {
  const fx = providerFixture({ name: "t", kind: "openai", model: "m-1", api_key_env: "TEST_KEY" }, "TEST_KEY=sk-from-dotenv");
  let server: Server | undefined;
  const bodies: string[][] = [];
  const seen: Record<string, string | string[] | undefined>[] = [];
  async function serve(...answers: string[][]): Promise<string> {
    bodies.splice(0, bodies.length, ...answers);
    seen.length = 0;
    server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        // Each piece its own write: events arrive cut across reads.
        const pieces = bodies.shift() ?? [];
        const next = () => (pieces.length ? res.write(pieces.shift()!, next) : res.end());
        next();
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }
  const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

  test("events cut across reads; a last usage chunk without its blank line and no [DONE] still completes the answer", async () => {
    const all = chunk({ content: "Hel" }) + chunk({ content: "lo" }) + chunk({}, "stop") + `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 2 } })}`;
    const url = await serve([all.slice(0, 17), all.slice(17, 60), all.slice(60)]);
    try {
      const deltas: string[] = [];
      const r = await fx.make(url).chat(fx.req(), { onText: (t) => deltas.push(t) }, signal());
      expect(deltas).toEqual(["Hel", "lo"]);
      expect(r.message.content).toBe("Hello");
      expect(r.finishReason).toBe("stop");
      expect(r.usage).toMatchObject({ inputTokens: 9, outputTokens: 2 });
      // What the SDK sent that servers look at: the key, JSON both ways.
      expect(seen[0]).toMatchObject({ authorization: "Bearer sk-from-dotenv", "content-type": "application/json", accept: "application/json" });
      expect(seen[0]!["user-agent"]).toMatch(/^reasonix\//);
    } finally {
      server?.close();
    }
  });

  test("the entry's headers replace ours whatever their case, never doubling them", async () => {
    const url = await serve([chunk({ content: "ok" }), chunk({}, "stop"), "data: [DONE]\n\n"]);
    try {
      const p = fx.make(url, { headers: { "Content-Type": "application/json; charset=utf-8", Authorization: "Bearer from-headers", "X-Title": "t" } });
      expect((await p.chat(fx.req(), {}, signal())).message.content).toBe("ok");
      expect(seen[0]).toMatchObject({ "content-type": "application/json; charset=utf-8", authorization: "Bearer from-headers", "x-title": "t" });
    } finally {
      server?.close();
    }
  });

  test("an `event: error` is the provider's own error, retried; a chunk after [DONE] is never read", async () => {
    const url = await serve(
      [chunk({ content: "par" }), `event: error\ndata: ${JSON.stringify({ error: { message: "overloaded" } })}\n\n`],
      [chunk({ content: "whole" }), chunk({}, "stop"), "data: [DONE]\n\n", chunk({ content: " never" })],
    );
    try {
      const retries: string[] = [];
      const r = await chatWithRetry(fx.make(url), fx.req(), {}, signal(), policy, (n) => retries.push(n.reason));
      expect(retries).toHaveLength(1);
      expect(retries[0]).toContain("reported an error mid-stream: overloaded");
      expect(r.message.content).toBe("whole");
    } finally {
      server?.close();
    }
  });
});
