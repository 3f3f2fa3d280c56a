/**
 * The provider-neutral conversation and streaming contract. The agent loop
 * speaks only these types; each provider kind translates them to its wire
 * format and back.
 */
import type { Usage } from "../engine/types.ts";

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text of the arguments, exactly as the model produced it. */
  arguments: string;
}

/** Anthropic thinking blocks must be replayed verbatim (signature included). */
export type ThinkingBlock =
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string };

export type Message =
  | { role: "user"; content: string; /** Pictures sent with the text (see images.ts). */ images?: import("./images.ts").ImageInput[] }
  | {
      role: "assistant";
      content: string;
      /** Visible reasoning (DeepSeek reasoning_content / Anthropic thinking text). */
      reasoning?: string;
      thinkingBlocks?: ThinkingBlock[];
      toolCalls?: ToolCall[];
      /**
       * Anthropic: the answer's content blocks exactly as they came, kept when
       * the provider ran server tools (server_tool_use, web_search_tool_result…)
       * or paused the turn, and sent back verbatim on later steps.
       */
      anthropicContent?: Record<string, unknown>[];
      /** Responses: the answer's reasoning items (encrypted, without ids), sent back on later steps since nothing is stored. */
      reasoningItems?: Record<string, unknown>[];
    }
  | { role: "tool"; callId: string; name: string; content: string; isError?: boolean };

export type AssistantMessage = Extract<Message, { role: "assistant" }>;

export interface ToolSchema {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ChatRequest {
  system: string;
  tools: ToolSchema[];
  messages: Message[];
  maxOutputTokens?: number;
  /** The session's reasoning effort (see reasoning.ts); undefined: the entry's reasoning_effort. */
  reasoningEffort?: string;
}

/** The provider has sent nothing for a while (first byte, or between bytes). */
export interface WaitingNotice {
  phase: "first_byte" | "idle";
  /** Seconds since the request was sent (first_byte) or since the last byte (idle). */
  seconds: number;
  /** When the attempt gives up, and the setting that says so. */
  timeoutSeconds: number;
  setting: "first_byte_timeout_seconds" | "idle_timeout_seconds";
}

export interface StreamHandlers {
  onText?(delta: string): void;
  onReasoning?(delta: string): void;
  onWaiting?(notice: WaitingNotice): void;
}

/**
 * Why the model stopped. `length`: the output limit cut the answer;
 * `content_filter`: the provider's filter stopped it; `refusal`: the model
 * declined (Anthropic stop_reason "refusal", OpenAI refusal deltas).
 */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "refusal" | "other";

export interface ChatResult {
  message: AssistantMessage;
  usage: Usage;
  finishReason: FinishReason;
  /** The output limit the request carried (max_tokens), when one was sent. */
  outputLimit?: number;
}

/** One configured provider entry, ready to stream. */
export interface Provider {
  readonly name: string;
  readonly kind: string;
  readonly model: string;
  readonly contextWindow: number;
  /** The entry says `vision = true`: user messages may carry images. */
  readonly vision?: boolean;
  /** Per-million-token prices (entry `prices`, else the rate card), for cost receipts. */
  readonly prices?: Prices;
  /** One attempt: no retries here (see retry.ts). Throws ProviderError. */
  chat(req: ChatRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ChatResult>;
  /** Model ids the endpoint advertises. */
  listModels(signal?: AbortSignal): Promise<string[]>;
}

/** A `[[providers]]` entry after validation. */
export interface ProviderConfig {
  name: string;
  kind: string;
  base_url?: string;
  model?: string;
  models?: string[];
  api_key_env?: string;
  full_url?: boolean;
  models_url?: string;
  headers?: Record<string, string>;
  extra_body?: Record<string, unknown>;
  context_window?: number;
  max_output_tokens?: number;
  /** The model accepts images (image input is sent only then). */
  vision?: boolean;
  /** anthropic kind: offer the provider's server-side web_search tool. */
  web_search?: boolean;
  /** Give up an attempt when no byte arrived this long after sending (default 30; 300 for a server on this machine and OpenAI reasoning models: stream-watch.ts). */
  first_byte_timeout_seconds?: number;
  /** Give up an attempt when the stream is silent this long between bytes (default 120). */
  idle_timeout_seconds?: number;
  auth?: "x-api-key" | "bearer";
  /** Reasoning request shape (reasoning.ts): auto-detected from base_url and model by default. */
  capability?: "auto" | "deepseek-thinking" | "openai-reasoning" | "plain";
  /** Provider-level thinking.type override. */
  thinking?: "auto" | "enabled" | "disabled" | "adaptive";
  /** Default reasoning effort for this entry (a session's /effort overrides it). */
  reasoning_effort?: string;
  prices?: { input?: number; output?: number; cache_hit?: number; cache_write?: number; currency?: string };
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheHitTokens: 0 });

/** A model's prices per million tokens: the entry's `prices`, or the rate card's (pricing.ts). */
export interface Prices {
  /** Per million uncached input tokens. */
  input: number;
  output: number;
  /** Per million cached input tokens. */
  cacheHit: number;
  /** Per million input tokens written to the prompt cache (Anthropic: 1.25× input); absent = the input price. */
  cacheWrite?: number;
  currency: string;
  /** Where the numbers come from: "config" or "rate card <vendor>/<model> from <date>". */
  source?: string;
}
