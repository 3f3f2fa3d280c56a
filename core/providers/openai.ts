/**
 * `kind = "openai"`: any /chat/completions endpoint, through the official SDK
 * (imported lazily so the CLI starts fast).
 */
import { randomUUID } from "node:crypto";
import type { Usage } from "../engine/types.ts";
import { mergeExtraBody } from "./config.ts";
import { ProviderError, httpError } from "./errors.ts";
import { ctxOf, fetchModelList, joinUrl, networkError, who, type ProviderCtx } from "./http.ts";
import { StreamWatch } from "./stream-watch.ts";
import { openAIImagePart } from "./images.ts";
import { applyChatReasoning, reasoningShape, replaysReasoning, type ReasoningShape } from "./reasoning.ts";

/** Before reasoning shapes: reasoning_content on tool-calling steps (DeepSeek thinking). */
const DEFAULT_SHAPE: ReasoningShape = { vendor: "deepseek", replay: "tool-steps", tokenField: "max_tokens", efforts: [] };
import { ConfiguredProvider, registerProviderKind } from "./registry.ts";
import type { ChatRequest, ChatResult, FinishReason, Message, Provider, ProviderConfig, StreamHandlers, ToolCall } from "./types.ts";

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

export function openAIUsage(u: any): Usage {
  const usage: Usage = {
    inputTokens: Number(u?.prompt_tokens ?? 0),
    outputTokens: Number(u?.completion_tokens ?? 0),
    // DeepSeek reports prompt_cache_hit_tokens; OpenAI prompt_tokens_details.cached_tokens.
    cacheHitTokens: Number(u?.prompt_cache_hit_tokens ?? u?.prompt_tokens_details?.cached_tokens ?? 0),
  };
  const r = u?.completion_tokens_details?.reasoning_tokens;
  if (typeof r === "number") usage.reasoningTokens = r;
  return usage;
}

const finishOf = (r: string): FinishReason =>
  r === "stop" ? "stop" : r === "tool_calls" || r === "function_call" ? "tool_calls" : r === "length" ? "length" : r === "content_filter" ? "content_filter" : "other";

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

class OpenAIProvider extends ConfiguredProvider implements Provider {
  readonly kind = "openai";
  private readonly clients = new ClientCache();

  async chat(req: ChatRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ChatResult> {
    const ctx = ctxOf(this.cfg);
    const client = await this.clients.get(this.cfg, this.key());
    const watch = new StreamWatch(this.cfg, ctx, handlers.onWaiting, signal);
    const body = buildOpenAIBody(this.cfg, req);
    let started = false;
    let content = "";
    let reasoning = "";
    let refusal = "";
    const calls: { id: string; name: string; args: string }[] = [];
    let finish: string | undefined;
    let usage: Usage | undefined;
    try {
      const stream = (await client.chat.completions.create(body as any, watched(watch))) as unknown as AsyncIterable<any>;
      for await (const chunk of stream) {
        started = true;
        if (chunk?.usage) usage = openAIUsage(chunk.usage);
        const choice = chunk?.choices?.[0];
        if (!choice) continue;
        const d = choice.delta ?? {};
        const r = d.reasoning_content ?? d.reasoning;
        if (typeof r === "string" && r) {
          reasoning += r;
          handlers.onReasoning?.(r);
        }
        if (typeof d.content === "string" && d.content) {
          content += d.content;
          handlers.onText?.(d.content);
        }
        if (typeof d.refusal === "string" && d.refusal) refusal += d.refusal;
        for (const tc of d.tool_calls ?? []) {
          const idx = typeof tc.index === "number" ? tc.index : calls.length;
          const slot = (calls[idx] ??= { id: "", name: "", args: "" });
          if (tc.id) slot.id = tc.id;
          // Most servers send the name once; a few repeat it in every chunk.
          if (tc.function?.name && tc.function.name !== slot.name) slot.name += tc.function.name;
          if (tc.function?.arguments) slot.args += tc.function.arguments;
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (e) {
      throw mapSdkError(e, signal, started, ctx, watch);
    } finally {
      watch.stop();
    }
    // A complete answer whose connection then lingers is still complete.
    if (watch.error && !finish) throw watch.error;
    if (!finish) {
      throw new ProviderError("stream_cut", `${who(ctx)}: the stream ended before the answer was complete (no finish_reason)`);
    }
    const toolCalls: ToolCall[] = calls
      .filter(Boolean)
      .map((c, i) => ({ id: c.id || `call_${randomUUID().slice(0, 8)}_${i}`, name: c.name, arguments: c.args || "{}" }));
    const message = { role: "assistant" as const, content: content || refusal, ...(reasoning ? { reasoning } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
    const fr = finishOf(finish);
    const finishReason: FinishReason = fr === "length" || fr === "content_filter" ? fr : refusal && !content ? "refusal" : toolCalls.length ? "tool_calls" : fr;
    const limit = Number(body.max_tokens ?? body.max_completion_tokens ?? 0);
    return { message, usage: usage ?? { inputTokens: 0, outputTokens: 0, cacheHitTokens: 0, unreported: 1 }, finishReason, ...(limit > 0 ? { outputLimit: limit } : {}) };
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
