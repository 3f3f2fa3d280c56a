/**
 * `kind = "responses"`: the OpenAI Responses API (POST …/responses) through
 * the official SDK: streamed text, reasoning summaries, function tools and
 * usage, with the same stream watch (timeouts, non-SSE 200s) and error
 * texts as the other kinds. Requests are stateless (`store: false`): the
 * whole conversation is sent every step, so the prefix stays cacheable.
 */
import { applyResponsesReasoning, isOpenAIReasoningModel } from "./reasoning.ts";
import { responsesImagePart } from "./images.ts";
import type { Usage } from "../engine/types.ts";
import { mergeExtraBody } from "./config.ts";
import { ProviderError } from "./errors.ts";
import { ctxOf, who } from "./http.ts";
import { StreamWatch } from "./stream-watch.ts";
import { ClientCache, listBearerModels, mapSdkError, watched } from "./openai.ts";
import { ConfiguredProvider, registerProviderKind } from "./registry.ts";
import type { ChatRequest, ChatResult, FinishReason, Message, Provider, ProviderConfig, StreamHandlers, ToolCall } from "./types.ts";

/** Neutral messages → Responses input items (function calls and their outputs are items of their own). */
export function toResponsesInput(messages: Message[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const m of messages) {
    if (m.role === "user") out.push({ role: "user", content: m.images?.length ? [{ type: "input_text", text: m.content }, ...m.images.map(responsesImagePart)] : m.content });
    else if (m.role === "tool") out.push({ type: "function_call_output", call_id: m.callId, output: m.content });
    else {
      // Reasoning first, as it came: a reasoning model continues a tool loop from it.
      for (const r of m.reasoningItems ?? []) out.push({ ...r });
      if (m.content) out.push({ role: "assistant", content: m.content });
      for (const c of m.toolCalls ?? []) out.push({ type: "function_call", call_id: c.id, name: c.name, arguments: c.arguments });
    }
  }
  return out;
}

export function buildResponsesBody(cfg: ProviderConfig, req: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: cfg.model,
    instructions: req.system,
    input: toResponsesInput(req.messages),
    stream: true,
    store: false,
  };
  if (req.tools.length > 0) body.tools = req.tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.inputSchema, strict: false }));
  const maxTokens = req.maxOutputTokens || cfg.max_output_tokens;
  if (maxTokens && maxTokens > 0) body.max_output_tokens = maxTokens;
  applyResponsesReasoning(body, cfg, req.reasoningEffort);
  const out = mergeExtraBody(body, cfg.extra_body, cfg.name);
  // Nothing is stored, so a reasoning model's reasoning can only come back encrypted
  // (other models refuse the include).
  const reasons = cfg.capability !== "plain" && (cfg.capability === "openai-reasoning" || isOpenAIReasoningModel(cfg.model ?? "") || body.reasoning !== undefined);
  if (out.store === false && reasons) {
    const given = Array.isArray(out.include) ? (out.include as unknown[]) : [];
    out.include = given.includes(ENCRYPTED_REASONING) ? given : [...given, ENCRYPTED_REASONING];
  }
  return out;
}

const ENCRYPTED_REASONING = "reasoning.encrypted_content";

export function responsesUsage(u: any): Usage {
  const usage: Usage = {
    inputTokens: Number(u?.input_tokens ?? 0),
    outputTokens: Number(u?.output_tokens ?? 0),
    cacheHitTokens: Number(u?.input_tokens_details?.cached_tokens ?? 0),
  };
  const r = u?.output_tokens_details?.reasoning_tokens;
  if (typeof r === "number") usage.reasoningTokens = r;
  return usage;
}

const failureKind = (code: string | undefined) =>
  code === "rate_limit_exceeded" ? "rate_limit" : code === "server_error" || code === "vector_store_timeout" || !code ? "server" : "bad_request";

class ResponsesProvider extends ConfiguredProvider implements Provider {
  readonly kind = "responses";
  private readonly clients = new ClientCache();

  async chat(req: ChatRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ChatResult> {
    const ctx = ctxOf(this.cfg);
    const client = await this.clients.get(this.cfg, this.key());
    const watch = new StreamWatch(this.cfg, ctx, handlers.onWaiting, signal);
    const body = buildResponsesBody(this.cfg, req);
    let started = false;
    let content = "";
    let reasoning = "";
    let refusal = "";
    const calls = new Map<number, { id: string; name: string; args: string }>();
    const reasoningItems = new Map<number, Record<string, unknown>>();
    let finish: FinishReason | undefined;
    let usage: Usage | undefined;
    let lastPart = "";
    try {
      const stream = (await client.responses.create(body as any, watched(watch))) as unknown as AsyncIterable<any>;
      read: for await (const ev of stream) {
        started = true;
        switch (ev?.type) {
          case "response.output_text.delta":
            if (ev.delta) {
              content += ev.delta;
              handlers.onText?.(ev.delta);
            }
            break;
          case "response.reasoning_summary_text.delta":
          case "response.reasoning_text.delta": {
            if (!ev.delta) break;
            // Summary parts are paragraphs of their own.
            const part = `${ev.output_index}:${ev.summary_index ?? ev.content_index ?? 0}`;
            const sep = reasoning && lastPart !== part ? "\n\n" : "";
            lastPart = part;
            reasoning += sep + ev.delta;
            handlers.onReasoning?.(sep + ev.delta);
            break;
          }
          case "response.refusal.delta":
            if (ev.delta) refusal += ev.delta;
            break;
          case "response.output_item.added":
          case "response.output_item.done": {
            const it = ev.item;
            if (ev.type === "response.output_item.done" && it?.type === "reasoning" && it.encrypted_content) {
              // Without its id: items of an unstored response cannot be referred to.
              const { id: _id, status: _status, ...item } = it;
              reasoningItems.set(ev.output_index, item);
            }
            if (it?.type !== "function_call") break;
            const slot = calls.get(ev.output_index) ?? { id: "", name: "", args: "" };
            slot.id = it.call_id || slot.id;
            slot.name = it.name || slot.name;
            // The finished item carries the complete arguments.
            if (ev.type === "response.output_item.done" && typeof it.arguments === "string") slot.args = it.arguments;
            calls.set(ev.output_index, slot);
            break;
          }
          case "response.function_call_arguments.delta": {
            const slot = calls.get(ev.output_index);
            if (slot && ev.delta) slot.args += ev.delta;
            break;
          }
          case "response.completed":
            if (ev.response?.status !== "incomplete") {
              usage = responsesUsage(ev.response?.usage);
              finish = "stop";
              break read; // complete: do not wait for the server to close
            }
          // falls through: a "completed" event that says incomplete is one
          case "response.incomplete": {
            usage = responsesUsage(ev.response?.usage);
            const why = ev.response?.incomplete_details?.reason;
            finish = why === "max_output_tokens" ? "length" : why === "content_filter" ? "content_filter" : "other";
            break read;
          }
          case "response.failed": {
            const e = ev.response?.error ?? {};
            throw new ProviderError(failureKind(e.code), `${who(ctx)} reported a failed response (${e.code ?? "error"}): ${e.message ?? ""}`);
          }
        }
      }
    } catch (e) {
      throw mapSdkError(e, signal, started, ctx, watch);
    } finally {
      watch.stop();
    }
    // A complete answer whose connection then lingers is still complete.
    if (watch.error && !finish) throw watch.error;
    if (!finish) throw new ProviderError("stream_cut", `${who(ctx)}: the stream ended before the answer was complete (no response.completed)`);
    const toolCalls: ToolCall[] = [...calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, c], i) => ({ id: c.id || `call_${crypto.randomUUID().slice(0, 8)}_${i}`, name: c.name, arguments: c.args || "{}" }));
    const items = [...reasoningItems.entries()].sort((a, b) => a[0] - b[0]).map(([, it]) => it);
    const message = { role: "assistant" as const, content: content || refusal, ...(reasoning ? { reasoning } : {}), ...(toolCalls.length ? { toolCalls } : {}), ...(items.length ? { reasoningItems: items } : {}) };
    const finishReason: FinishReason = finish !== "stop" ? finish : refusal && !content ? "refusal" : toolCalls.length ? "tool_calls" : "stop";
    const limit = Number(body.max_output_tokens ?? 0);
    return { message, usage: usage ?? { inputTokens: 0, outputTokens: 0, cacheHitTokens: 0, unreported: 1 }, finishReason, ...(limit > 0 ? { outputLimit: limit } : {}) };
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    return listBearerModels(this.cfg, this.key(), /\/responses\/?$/, signal);
  }
}

registerProviderKind("responses", (cfg, deps) => new ResponsesProvider(cfg, deps));
