/**
 * `kind = "openai"`: any /chat/completions endpoint, with our own fetch and
 * SSE parser. The official SDK (imported lazily, on first use) serves the
 * Responses API: its client cache and error mapping live here.
 */
import { buildInfo } from "../version.ts";
import { mergeExtraBody } from "./config.ts";
import { ProviderError, httpError } from "./errors.ts";
import { ctxOf, fetchModelList, joinUrl, networkError, providerFetch, who, type ProviderCtx } from "./http.ts";
import { ChatAccumulator } from "./openai-stream.ts";
import { pumpSse, SseParser } from "./sse.ts";
import { StreamWatch } from "./stream-watch.ts";
import { openAIImagePart } from "./images.ts";
import { applyChatReasoning, reasoningShape, replaysReasoning, type ReasoningShape } from "./reasoning.ts";

/** Before reasoning shapes: reasoning_content on tool-calling steps (DeepSeek thinking). */
const DEFAULT_SHAPE: ReasoningShape = { vendor: "deepseek", replay: "tool-steps", tokenField: "max_tokens", efforts: [] };
import { ConfiguredProvider, registerProviderKind } from "./registry.ts";
import type { ChatRequest, ChatResult, Message, Provider, ProviderConfig, StreamHandlers } from "./types.ts";

const USER_AGENT = `reasonix/${buildInfo().version}`;

/** The entry's Chat Completions URL: <base_url>/chat/completions, or base_url itself with full_url. */
export const chatCompletionsUrl = (cfg: ProviderConfig): string => (cfg.full_url ? cfg.base_url! : joinUrl(cfg.base_url!, "chat/completions"));

type OpenAIClient = import("openai").OpenAI;

export function toOpenAIMessages(system: string, messages: Message[], shape: ReasoningShape = DEFAULT_SHAPE): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ role: "system", content: system }];
  for (const m of messages) {
    if (m.role === "user") out.push({ role: "user", content: m.images?.length ? [{ type: "text", text: m.content }, ...m.images.map(openAIImagePart)] : m.content });
    else if (m.role === "tool") out.push({ role: "tool", tool_call_id: m.callId, content: m.content });
    else {
      const msg: Record<string, unknown> = { role: "assistant", content: m.content };
      if (m.toolCalls && m.toolCalls.length > 0) {
        msg.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
      }
      // Replayed only where the vendor accepts it (reasoning.ts); the rule
      // depends on the entry and the message, so the prefix stays byte-identical.
      if (m.reasoning && replaysReasoning(shape, Boolean(m.toolCalls?.length))) msg.reasoning_content = m.reasoning;
      out.push(msg);
    }
  }
  return out;
}

export function buildOpenAIBody(cfg: ProviderConfig, req: ChatRequest): Record<string, unknown> {
  const shape = reasoningShape(cfg);
  const body: Record<string, unknown> = {
    model: cfg.model,
    messages: toOpenAIMessages(req.system, req.messages, shape),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
  }
  const maxTokens = req.maxOutputTokens || cfg.max_output_tokens;
  if (maxTokens && maxTokens > 0) body[shape.tokenField] = maxTokens;
  applyChatReasoning(body, cfg, req.reasoningEffort);
  return mergeExtraBody(body, cfg.extra_body, cfg.name);
}

let sdk: Promise<typeof import("openai")> | undefined;

/**
 * An OpenAI SDK client for a provider entry (made once: construction costs
 * about 0.3 ms). Each request names its attempt's StreamWatch in
 * `fetchOptions` (see `watched`); the client's fetch hands the request to it.
 */
export async function openAIClient(cfg: ProviderConfig, key: string | undefined): Promise<OpenAIClient> {
  const { default: OpenAI } = await (sdk ??= import("openai"));
  const headers: Record<string, string | null> = { ...(cfg.headers ?? {}) };
  if (!key) headers.Authorization = null;
  const full = cfg.full_url ? cfg.base_url! : undefined;
  const route = (url: any, init: any = {}): Promise<Response> => {
    const { [WATCH]: watch, ...rest } = init;
    return watch ? (watch as StreamWatch).fetch(full ?? url, rest) : fetch(full ?? url, rest);
  };
  return new OpenAI({
    apiKey: key ?? "unused",
    // Pin every option the SDK would otherwise read from the shell environment.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    baseURL: cfg.base_url!,
    maxRetries: 0, // retry.ts owns retries, so Retry-After handling is ours and bounded
    timeout: 24 * 3600_000, // StreamWatch owns timeouts (first byte, idle)
    defaultHeaders: headers,
    logLevel: "off",
    fetch: route,
  } as any);
}

const WATCH = "reasonixStreamWatch";

/** Request options that send one request through `watch` (and abort with it). */
export const watched = (watch: StreamWatch) => ({ signal: watch.signal, fetchOptions: { [WATCH]: watch } as any });

/** The entry's client, rebuilt only when its key changes. */
export class ClientCache {
  private client?: Promise<OpenAIClient>;
  private forKey?: string;
  get(cfg: ProviderConfig, key: string | undefined): Promise<OpenAIClient> {
    if (!this.client || this.forKey !== key) {
      this.forKey = key;
      this.client = openAIClient(cfg, key);
    }
    return this.client;
  }
}

/** SDK/stream failure → ProviderError naming the entry, host and next step. */
export function mapSdkError(e: unknown, signal: AbortSignal, started: boolean, ctx: ProviderCtx, watch: StreamWatch): Error {
  if (watch.error) return watch.error;
  if (e instanceof ProviderError) return e;
  if (signal.aborted) return new ProviderError("aborted", "request cancelled", { cause: e });
  const err = e as any;
  if (typeof err?.status === "number") {
    return httpError(err.status, JSON.stringify({ error: err.error ?? { message: err.message } }), { ...ctx, headers: err?.headers });
  }
  if (err?.error && !err.status && started) {
    // An error object inside the SSE stream (e.g. overloaded mid-answer).
    const m = err.error?.message ?? err.message;
    return new ProviderError("server", `${who(ctx)} reported an error mid-stream: ${m}; Reasonix retries the step`, { cause: e });
  }
  if (e instanceof SyntaxError || err?.cause instanceof SyntaxError) {
    return new ProviderError("stream_cut", `${who(ctx)} sent malformed stream data (${String(err.message).slice(0, 120)})`, { cause: e });
  }
  return networkError(ctx, err?.cause ?? e, started);
}

/** A failed attempt's error: the watch's (a stall), ours (bad data, an error event), a cancel, or the network's. */
function chatError(e: unknown, watch: StreamWatch, signal: AbortSignal, ctx: ProviderCtx, started: boolean): Error {
  if (watch.error) return watch.error;
  if (e instanceof ProviderError) return e;
  if (signal.aborted) return new ProviderError("aborted", "request cancelled", { cause: e });
  return networkError(ctx, e, started);
}

class OpenAIProvider extends ConfiguredProvider implements Provider {
  readonly kind = "openai";

  /**
   * One attempt, with our own fetch and SSE parser rather than the SDK's
   * stream: a 20,000-token answer is 20,000 events, and the SDK's layers of
   * async iterators cost about three times the CPU of the rest of the run
   * (issue 35). The SDK stays for the Responses API (responses.ts).
   */
  async chat(req: ChatRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ChatResult> {
    const ctx = ctxOf(this.cfg);
    const watch = new StreamWatch(this.cfg, ctx, handlers.onWaiting, signal);
    const body = buildOpenAIBody(this.cfg, req);
    const acc = new ChatAccumulator(handlers, ctx);
    try {
      const res = await providerFetch(chatCompletionsUrl(this.cfg), { method: "POST", headers: this.headers(), body: JSON.stringify(body), signal: watch.signal }, ctx, watch.open);
      if (!res.body) throw new ProviderError("stream_cut", `${who(ctx)} sent no body`);
      await pumpSse(res.body, new SseParser(acc.onEvent), watch);
    } catch (e) {
      // A complete answer whose connection then lingers (no [DONE], then a stall) is still complete.
      if (!(watch.error && acc.finish)) throw chatError(e, watch, signal, ctx, acc.started);
    } finally {
      watch.stop();
    }
    // A stall cancels the body: the read ends as if the server had closed it.
    if (watch.error && !acc.finish) throw watch.error;
    if (!acc.finish) {
      throw new ProviderError("stream_cut", `${who(ctx)}: the stream ended before the answer was complete (no finish_reason)`);
    }
    return acc.result(Number(body.max_tokens ?? body.max_completion_tokens ?? 0));
  }

  /** What the SDK sent, minus its telemetry headers; the entry's `headers` win, whatever their case. */
  private headers(): Headers {
    const key = this.key();
    const h = new Headers({ accept: "application/json", "content-type": "application/json", "user-agent": USER_AGENT, ...(key ? { authorization: `Bearer ${key}` } : {}) });
    for (const [name, value] of Object.entries(this.cfg.headers ?? {})) h.set(name, value);
    return h;
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    return listBearerModels(this.cfg, this.key(), /\/chat\/completions\/?$/, signal);
  }
}

/** GET the model list of an OpenAI-style endpoint (models_url, or <base_url>/models; a full_url loses `endpoint`). */
export function listBearerModels(cfg: ProviderConfig, key: string | undefined, endpoint: RegExp, signal?: AbortSignal): Promise<string[]> {
  const base = cfg.base_url!;
  const url = cfg.models_url || (cfg.full_url ? base.replace(endpoint, "/models") : joinUrl(base, "models"));
  const headers: Record<string, string> = { ...(cfg.headers ?? {}) };
  if (key) headers.Authorization = `Bearer ${key}`;
  return fetchModelList(url, headers, ctxOf(cfg, url), signal);
}

registerProviderKind("openai", (cfg, deps) => new OpenAIProvider(cfg, deps));
