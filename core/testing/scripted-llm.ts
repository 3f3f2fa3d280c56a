/**
 * Scripted LLM servers for tests and benchmarks: real HTTP on 127.0.0.1
 * (port 0) that replay the vendors' exact SSE wire formats from a script and
 * record every request so tests can assert what the client sent.
 *
 *   const llm = await startScriptedOpenAI([{ toolCalls: [{ name: "read_file", arguments: { path: "a" } }] }, { text: "done" }]);
 *   // base_url = llm.url  (…/v1; the client posts to …/v1/chat/completions)
 *   llm.requests[0].body.messages …
 *   await llm.close();
 *
 * The Anthropic flavour lives in scripted-llm-anthropic.ts and shares this
 * script format.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { canSeePeerReads, peerHasRead } from "./peer-read.ts";

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** Object (serialized for you) or the exact argument text to stream. */
  arguments: string | Record<string, unknown>;
}

export interface ScriptedUsage {
  input?: number;
  output?: number;
  cacheHit?: number;
  /** Anthropic: input tokens written to the prompt cache (cache_creation_input_tokens). */
  cacheWrite?: number;
  reasoning?: number;
}

export interface ReplyStep {
  kind?: "reply";
  text?: string;
  reasoning?: string;
  /** Anthropic only: signature of the thinking block. */
  signature?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: ScriptedUsage;
  /**
   * Anthropic: where the input usage goes. "start" (default) on message_start;
   * "delta" only on message_delta (cumulative), message_start saying 0 — as
   * some compatible endpoints do.
   */
  anthropicUsageIn?: "start" | "delta";
  /**
   * Anthropic: server-side content blocks (server_tool_use, web_search_tool_result…)
   * streamed after the text, as Anthropic does when it runs a server tool; a
   * block's `input` streams as input_json_delta.
   */
  serverBlocks?: Record<string, unknown>[];
  /** Responses: the event that reports an incomplete response (default response.incomplete; some servers send response.completed with status "incomplete"). */
  incompleteEvent?: "response.incomplete" | "response.completed";
  /** Split text, reasoning and tool arguments into pieces of this many characters (default 7). */
  chunkSize?: number;
  /** Send only the first N SSE events, then break the stream. */
  cutAfter?: number;
  /** How to break it: end the response cleanly (default) or reset the socket. */
  cutMode?: "end" | "reset";
  /**
   * Cut only once this settles: a test that needs the client to have seen a delta resolves it
   * then (its handler, or the client's REASONIX_TRACE mark: fresh-wait.ts traceMarked). Without
   * it a reset waits until the client's socket has read the frames written (peer-read.ts), which
   * makes a cut stream likely but not certain: Bun's fetch drops bytes its HTTP thread read but
   * JS did not take yet when the RST arrives, and the attempt then looks like a refused request.
   */
  cutWhen?: Promise<unknown>;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  /** Answer only once this settles (after delayMs): a test holds the reply until it has seen what it needs mid-turn. */
  until?: Promise<unknown>;
  /** Send an in-stream error event after the first N events (vendor error shape). */
  streamErrorAfter?: number;
  /**
   * OpenAI flavour: "openai" (default) sends usage in a last chunk with empty
   * choices, as OpenAI does with stream_options.include_usage; "deepseek"
   * puts it on the finish chunk, as DeepSeek does.
   */
  usageStyle?: "openai" | "deepseek" | "none";
  /** Send a garbled data line after the first N events, then end the stream. */
  malformedAfter?: number;
  /** Send the first N events, then wait until `resumeWhen` settles before the rest (a test looks at the screen mid-stream). */
  pauseAfter?: number;
  resumeWhen?: Promise<unknown>;
  /** Send the first N events, then hold the connection open without a byte (a stalled stream). */
  stallAfter?: number;
  /** The vendor's finish/stop reason on the wire (e.g. "length", "content_filter", "max_tokens", "refusal"). */
  finishReason?: string;
  /** Keep the connection open after the last event (a server that never closes). */
  linger?: boolean;
  /** OpenAI flavour: leave out the closing `data: [DONE]`. */
  noTerminator?: boolean;
  /** Content-type of the event stream (default text/event-stream; gateways sometimes mislabel it). */
  contentType?: string;
}

/** A non-streaming answer: any status, content-type and body (e.g. an HTML page with 200). */
export interface RawStep {
  kind: "raw";
  status?: number;
  contentType: string;
  body: string;
}

export interface ErrorStep {
  kind: "error";
  status: number;
  /** Response body; a vendor-shaped error is generated when absent. */
  body?: unknown;
  headers?: Record<string, string>;
  message?: string;
}

export type ScriptStep = ReplyStep | ErrorStep | RawStep | ((req: RecordedRequest) => ReplyStep | ErrorStep | RawStep);

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  body: any;
}

export interface ScriptedServer {
  /** Base URL to put in `base_url`. */
  url: string;
  /** Origin only (http://127.0.0.1:PORT). */
  origin: string;
  requests: RecordedRequest[];
  /** Requests to the chat endpoint only. */
  chatRequests(): RecordedRequest[];
  push(...steps: ScriptStep[]): void;
  /** Steps not yet consumed. */
  pending(): number;
  close(): Promise<void>;
}

export interface ScriptedOptions {
  /** Model ids served by the models endpoint. */
  models?: string[];
  /** Further exact paths that act as the chat endpoint (e.g. for full_url). */
  chatPaths?: string[];
}

/** Split a string into pieces (at least one piece, even when empty). */
export const pieces = (s: string, size: number): string[] => {
  if (s.length === 0) return [];
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
};

export const argText = (a: string | Record<string, unknown>): string => (typeof a === "string" ? a : JSON.stringify(a));

type Flavour = {
  chatPath: RegExp;
  modelsPath: RegExp;
  /** SSE frames (already formatted) for a reply step. */
  frames(step: ReplyStep, req: RecordedRequest, n: number): string[];
  errorFrame(message: string): string;
  errorBody(status: number, message: string): unknown;
  modelsBody(models: string[]): unknown;
  prefix: string;
};

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

export async function startScripted(flavour: Flavour, steps: ScriptStep[], opts: ScriptedOptions = {}): Promise<ScriptedServer> {
  const queue = [...steps];
  const requests: RecordedRequest[] = [];
  let replies = 0;
  const sockets = new Set<import("node:net").Socket>();
  const isChat = (path: string) => flavour.chatPath.test(path) || (opts.chatPaths ?? []).includes(path);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const rawBody = await readBody(req);
    let body: any = null;
    try {
      body = rawBody ? JSON.parse(rawBody) : null;
    } catch {}
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : String(v ?? "");
    const path = (req.url ?? "/").split("?")[0]!;
    const rec: RecordedRequest = { method: req.method ?? "GET", path, headers, rawBody, body };
    requests.push(rec);

    if (req.method === "GET" && flavour.modelsPath.test(path)) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(flavour.modelsBody(opts.models ?? ["scripted-model"])));
      return;
    }
    if (req.method !== "POST" || !isChat(path)) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify(flavour.errorBody(404, `no route ${req.method} ${path}`)));
      return;
    }
    const next = queue.shift();
    if (!next) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify(flavour.errorBody(500, "scripted server: script exhausted")));
      return;
    }
    const step = typeof next === "function" ? next(rec) : next;
    if (step.kind === "error") {
      res.writeHead(step.status, { "content-type": "application/json", ...(step.headers ?? {}) });
      res.end(JSON.stringify(step.body ?? flavour.errorBody(step.status, step.message ?? `scripted error ${step.status}`)));
      return;
    }
    if (step.kind === "raw") {
      res.writeHead(step.status ?? 200, { "content-type": step.contentType });
      res.end(step.body);
      return;
    }
    if (step.delayMs || step.until) {
      // Give up waiting when the client goes away (e.g. it was killed).
      let timer: ReturnType<typeof setTimeout> | undefined;
      const wait = (async () => {
        if (step.delayMs) await new Promise((r) => (timer = setTimeout(r, step.delayMs)));
        await step.until?.catch(() => {});
      })();
      await Promise.race([wait, new Promise((r) => res.once("close", r))]);
      clearTimeout(timer);
      if (res.destroyed || res.writableEnded) return;
    }
    const frames = flavour.frames(step, rec, ++replies);
    res.writeHead(200, { "content-type": step.contentType ?? "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    for (let i = 0; i < frames.length; i++) {
      if (step.streamErrorAfter !== undefined && i === step.streamErrorAfter) {
        res.write(flavour.errorFrame("scripted overload"));
        res.end();
        return;
      }
      if (step.malformedAfter !== undefined && i === step.malformedAfter) {
        res.write(`data: {"garbled\n\n`);
        res.end();
        return;
      }
      if (step.pauseAfter !== undefined && i === step.pauseAfter) {
        await Promise.race([step.resumeWhen?.catch(() => {}), new Promise((r) => res.once("close", r))]);
        if (res.destroyed || res.writableEnded) return;
      }
      if (step.stallAfter !== undefined && i === step.stallAfter) {
        // Hold the connection without a byte until the client gives up.
        res.flushHeaders();
        await new Promise((r) => res.once("close", r));
        return;
      }
      if (step.cutAfter !== undefined && i === step.cutAfter) {
        if (step.cutWhen) await Promise.race([step.cutWhen.catch(() => {}), new Promise((r) => res.once("close", r))]);
        if (step.cutMode === "reset") {
          // Reset only once the client has read the frames written (an RST drops what it has
          // not read, and it would see a refused request, not a cut stream).
          const sock = res.socket;
          if (!step.cutWhen && sock?.remotePort && sock.localPort) {
            const sent = frames.slice(0, i).reduce((n, f) => n + Buffer.byteLength(f), 0);
            if (canSeePeerReads()) {
              if (!(await peerHasRead(sock.remotePort, sock.localPort, sent))) console.error(`scripted server: the client did not read the ${sent} bytes before the reset`);
            } else await new Promise((r) => setTimeout(r, 10));
          }
          res.socket?.destroy();
        } else res.end();
        return;
      }
      res.write(frames[i]!);
    }
    if (step.linger) await new Promise((r) => res.once("close", r));
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      try {
        res.writeHead(500);
        res.end(String(e));
      } catch {}
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${flavour.prefix}`,
    origin,
    requests,
    chatRequests: () => requests.filter((r) => r.method === "POST" && isChat(r.path)),
    push: (...s) => void queue.push(...s),
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- OpenAI /chat/completions --------------------------------------------

const sse = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;

function openaiFrames(step: ReplyStep, req: RecordedRequest, n: number): string[] {
  const size = step.chunkSize ?? 7;
  const id = `chatcmpl-scripted-${n}`;
  const created = 1_700_000_000 + n;
  const model = String(req.body?.model ?? "scripted-model");
  const deepseek = step.usageStyle === "deepseek";
  // With include_usage, OpenAI sends "usage": null on every ordinary chunk.
  const nullUsage = !deepseek && req.body?.stream_options?.include_usage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = nullUsage) =>
    sse({ id, object: "chat.completion.chunk", created, model, system_fingerprint: "fp_scripted", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
  const frames: string[] = [chunk({ role: "assistant", content: "" })];
  for (const p of pieces(step.reasoning ?? "", size)) frames.push(chunk({ content: null, reasoning_content: p }));
  for (const p of pieces(step.text ?? "", size)) frames.push(chunk({ content: p }));
  (step.toolCalls ?? []).forEach((c, index) => {
    const callId = c.id ?? `call_${n}_${index}`;
    frames.push(chunk({ tool_calls: [{ index, id: callId, type: "function", function: { name: c.name, arguments: "" } }] }));
    for (const p of pieces(argText(c.arguments), size)) frames.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  const u = step.usage ?? {};
  const input = u.input ?? 100;
  const hit = u.cacheHit ?? 0;
  const output = u.output ?? 20;
  const usage = {
    prompt_tokens: input, completion_tokens: output, total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: hit },
    prompt_cache_hit_tokens: hit, prompt_cache_miss_tokens: input - hit,
    ...(u.reasoning !== undefined ? { completion_tokens_details: { reasoning_tokens: u.reasoning } } : {}),
  };
  const finish = step.finishReason ?? (step.toolCalls?.length ? "tool_calls" : "stop");
  if (step.usageStyle === "none") frames.push(chunk({}, finish));
  else if (deepseek) frames.push(chunk({ content: "" }, finish, { usage }));
  else {
    frames.push(chunk({}, finish));
    frames.push(sse({ id, object: "chat.completion.chunk", created, model, system_fingerprint: "fp_scripted", choices: [], usage }));
  }
  if (!step.noTerminator) frames.push("data: [DONE]\n\n");
  return frames;
}

export function startScriptedOpenAI(steps: ScriptStep[] = [], opts: ScriptedOptions = {}): Promise<ScriptedServer> {
  return startScripted(
    {
      prefix: "/v1",
      chatPath: /\/chat\/completions$/,
      modelsPath: /\/models$/,
      frames: openaiFrames,
      errorFrame: (message) => sse({ error: { message, type: "server_error", param: null, code: "overloaded" } }),
      errorBody: (status, message) => ({ error: { message, type: status === 401 ? "invalid_request_error" : "api_error", param: null, code: status === 401 ? "invalid_api_key" : null } }),
      modelsBody: (models) => ({ object: "list", data: models.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "scripted" })) }),
    },
    steps,
    opts,
  );
}
