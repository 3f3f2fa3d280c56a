/**
 * `kind = "openai"`: any /chat/completions endpoint, through the official SDK
 * (imported lazily so the CLI starts fast).
 */
import { randomUUID } from "node:crypto";
import type { Usage } from "../engine/types.ts";
import { mergeExtraBody } from "./config.ts";
import { ProviderError, httpError } from "./errors.ts";
import { fetchModelList, joinUrl } from "./http.ts";
import { ConfiguredProvider, registerProviderKind } from "./registry.ts";
import type { ChatRequest, ChatResult, FinishReason, Message, Provider, ProviderConfig, StreamHandlers, ToolCall } from "./types.ts";

type OpenAIClient = import("openai").OpenAI;

export function toOpenAIMessages(system: string, messages: Message[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ role: "system", content: system }];
  for (const m of messages) {
    if (m.role === "user") out.push({ role: "user", content: m.content });
    else if (m.role === "tool") out.push({ role: "tool", tool_call_id: m.callId, content: m.content });
    else {
      const msg: Record<string, unknown> = { role: "assistant", content: m.content };
      if (m.toolCalls && m.toolCalls.length > 0) {
        msg.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
        // DeepSeek-style thinking with tools expects the reasoning of a
        // tool-calling step back; the rule depends only on the message, so
        // the replayed prefix stays byte-identical.
        if (m.reasoning) msg.reasoning_content = m.reasoning;
      }
      out.push(msg);
    }
  }
  return out;
}

export function buildOpenAIBody(cfg: ProviderConfig, req: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: cfg.model,
    messages: toOpenAIMessages(req.system, req.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
  }
  const maxTokens = req.maxOutputTokens || cfg.max_output_tokens;
  if (maxTokens && maxTokens > 0) body.max_tokens = maxTokens;
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

const finishOf = (r: string): FinishReason => (r === "stop" ? "stop" : r === "tool_calls" || r === "function_call" ? "tool_calls" : r === "length" ? "length" : "other");

class OpenAIProvider extends ConfiguredProvider implements Provider {
  readonly kind = "openai";
  private client?: OpenAIClient;

  private async getClient(): Promise<OpenAIClient> {
    if (this.client) return this.client;
    const { default: OpenAI } = await import("openai");
    const key = this.key();
    const headers: Record<string, string | null> = { ...(this.cfg.headers ?? {}) };
    if (!key) headers.Authorization = null;
    const full = this.cfg.full_url ? this.cfg.base_url! : undefined;
    this.client = new OpenAI({
      apiKey: key ?? "unused",
      // Pin every option the SDK would otherwise read from the shell environment.
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      baseURL: this.cfg.base_url!,
      maxRetries: 0, // retry.ts owns retries, so Retry-After handling is ours and bounded
      defaultHeaders: headers,
      logLevel: "off",
      fetch: full ? (_url: any, init: any) => fetch(full, init) : undefined,
    } as any);
    return this.client;
  }

  async chat(req: ChatRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ChatResult> {
    const client = await this.getClient();
    const body = buildOpenAIBody(this.cfg, req);
    let started = false;
    let content = "";
    let reasoning = "";
    const calls: { id: string; name: string; args: string }[] = [];
    let finish: string | undefined;
    let usage: Usage | undefined;
    try {
      const stream = (await client.chat.completions.create(body as any, { signal })) as unknown as AsyncIterable<any>;
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
      throw this.mapError(e, signal, started);
    }
    if (!finish) {
      throw new ProviderError("stream_cut", `provider "${this.cfg.name}": the stream ended before the answer was complete`);
    }
    const toolCalls: ToolCall[] = calls
      .filter(Boolean)
      .map((c, i) => ({ id: c.id || `call_${randomUUID().slice(0, 8)}_${i}`, name: c.name, arguments: c.args || "{}" }));
    const message = { role: "assistant" as const, content, ...(reasoning ? { reasoning } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
    return { message, usage: usage ?? { inputTokens: 0, outputTokens: 0, cacheHitTokens: 0 }, finishReason: toolCalls.length ? "tool_calls" : finishOf(finish) };
  }

  private mapError(e: unknown, signal: AbortSignal, started: boolean): Error {
    if (e instanceof ProviderError) return e;
    if (signal.aborted) return new ProviderError("aborted", "request cancelled", { cause: e });
    const err = e as any;
    const ctx = { provider: this.cfg.name, apiKeyEnv: this.cfg.api_key_env, headers: err?.headers };
    if (typeof err?.status === "number") {
      return httpError(err.status, JSON.stringify({ error: err.error ?? { message: err.message } }), ctx);
    }
    if (err?.error && !err.status && started) {
      // An error object inside the SSE stream (e.g. overloaded mid-answer).
      return new ProviderError("server", `provider "${this.cfg.name}" reported an error mid-stream: ${err.message}`, { cause: e });
    }
    if (started) return new ProviderError("stream_cut", `provider "${this.cfg.name}": the stream broke mid-answer (${err?.message ?? e})`, { cause: e });
    return new ProviderError("network", `cannot reach provider "${this.cfg.name}" at ${this.cfg.base_url}: ${err?.message ?? e}`, { cause: e });
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const base = this.cfg.base_url!;
    const url = this.cfg.models_url || (this.cfg.full_url ? base.replace(/\/chat\/completions\/?$/, "/models") : joinUrl(base, "models"));
    const key = this.key();
    const headers: Record<string, string> = { ...(this.cfg.headers ?? {}) };
    if (key) headers.Authorization = `Bearer ${key}`;
    return fetchModelList(url, headers, { provider: this.cfg.name, apiKeyEnv: this.cfg.api_key_env }, signal);
  }
}

registerProviderKind("openai", (cfg, deps) => new OpenAIProvider(cfg, deps));

