/**
 * A Chat Completions stream, event by event: the answer's text, reasoning,
 * tool calls, finish reason and usage put together from its chunks, with
 * the deltas handed on as they come (issue 35: no promise or copy per event).
 */
import type { Usage } from "../engine/types.ts";
import { ProviderError } from "./errors.ts";
import { who, type ProviderCtx } from "./http.ts";
import type { ChatResult, FinishReason, StreamHandlers, ToolCall } from "./types.ts";

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

export class ChatAccumulator {
  /** A chunk arrived (an error after this point broke the stream mid-answer). */
  started = false;
  finish: string | undefined;
  private content = "";
  private reasoning = "";
  private refusal = "";
  private readonly calls: { id: string; name: string; args: string }[] = [];
  private usage: Usage | undefined;

  constructor(
    private readonly handlers: StreamHandlers,
    private readonly ctx: ProviderCtx,
  ) {}

  /** One SSE event (an SseParser callback); true at `[DONE]`, the end of the answer. */
  readonly onEvent = (event: string, data: string): boolean => {
    if (data === "[DONE]") return true;
    if (data === "") return false;
    let chunk: any;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new ProviderError("stream_cut", `${who(this.ctx)} sent malformed stream data (${data.slice(0, 80)})`);
    }
    // An error object inside the stream (e.g. overloaded mid-answer), as an `error` event or a chunk.
    if (event === "error" || chunk?.error) {
      const err = event === "error" ? (chunk?.error ?? chunk) : chunk.error;
      const m = typeof err?.message === "string" ? err.message : JSON.stringify(err?.message ?? err);
      throw new ProviderError("server", `${who(this.ctx)} reported an error mid-stream: ${m}; Reasonix retries the step`);
    }
    this.chunk(chunk);
    return false;
  };

  private chunk(chunk: any): void {
    this.started = true;
    if (chunk?.usage) this.usage = openAIUsage(chunk.usage);
    const choice = chunk?.choices?.[0];
    if (!choice) return;
    const d = choice.delta ?? {};
    const r = d.reasoning_content ?? d.reasoning;
    if (typeof r === "string" && r) {
      this.reasoning += r;
      this.handlers.onReasoning?.(r);
    }
    if (typeof d.content === "string" && d.content) {
      this.content += d.content;
      this.handlers.onText?.(d.content);
    }
    if (typeof d.refusal === "string" && d.refusal) this.refusal += d.refusal;
    if (d.tool_calls) {
      for (const tc of d.tool_calls) {
        const idx = typeof tc.index === "number" ? tc.index : this.calls.length;
        const slot = (this.calls[idx] ??= { id: "", name: "", args: "" });
        if (tc.id) slot.id = tc.id;
        // Most servers send the name once; a few repeat it in every chunk.
        if (tc.function?.name && tc.function.name !== slot.name) slot.name += tc.function.name;
        if (tc.function?.arguments) slot.args += tc.function.arguments;
      }
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
  }

  /** The answer, once `finish` is set; `limit`: the request's max_tokens (0: none). */
  result(limit: number): ChatResult {
    const { content, refusal, reasoning } = this;
    const toolCalls: ToolCall[] = this.calls
      .filter(Boolean)
      .map((c, i) => ({ id: c.id || `call_${crypto.randomUUID().slice(0, 8)}_${i}`, name: c.name, arguments: c.args || "{}" }));
    const message = { role: "assistant" as const, content: content || refusal, ...(reasoning ? { reasoning } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
    const fr = finishOf(this.finish ?? "");
    const finishReason: FinishReason = fr === "length" || fr === "content_filter" ? fr : refusal && !content ? "refusal" : toolCalls.length ? "tool_calls" : fr;
    return { message, usage: this.usage ?? { inputTokens: 0, outputTokens: 0, cacheHitTokens: 0, unreported: 1 }, finishReason, ...(limit > 0 ? { outputLimit: limit } : {}) };
  }
}
