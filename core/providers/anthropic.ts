/**
 * `kind = "anthropic"`: the Messages API over SSE with our own small fetch
 * client (no SDK needed for one endpoint).
 */
import { applyAnthropicThinking } from "./reasoning.ts";
import { anthropicImageBlock } from "./images.ts";
import type { Usage } from "../engine/types.ts";
import { mergeExtraBody } from "./config.ts";
import { ProviderError } from "./errors.ts";
import { ctxOf, fetchModelList, joinUrl, networkError, providerFetch, who } from "./http.ts";
import { StreamWatch } from "./stream-watch.ts";
import { ConfiguredProvider, registerProviderKind } from "./registry.ts";
import { readSse } from "./sse.ts";
import type { ChatRequest, ChatResult, FinishReason, Message, Provider, ProviderConfig, StreamHandlers, ThinkingBlock, ToolCall } from "./types.ts";

export const ANTHROPIC_VERSION = "2023-06-01";
const DEFAULT_MAX_TOKENS = 8192;

type Block = Record<string, unknown>;

function parseInput(args: string): unknown {
  try {
    const v = JSON.parse(args || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** Neutral messages → Anthropic turns; consecutive same-role turns are merged. */
export function toAnthropicMessages(messages: Message[]): { role: "user" | "assistant"; content: Block[] }[] {
  const out: { role: "user" | "assistant"; content: Block[] }[] = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === "user") push("user", [{ type: "text", text: m.content }, ...(m.images ?? []).map(anthropicImageBlock)]);
    else if (m.role === "tool") {
      const b: Block = { type: "tool_result", tool_use_id: m.callId, content: m.content };
      if (m.isError) b.is_error = true;
      push("user", [b]);
    } else if (m.anthropicContent?.length) {
      // Server tool blocks and paused turns go back exactly as they came.
      push("assistant", m.anthropicContent.map((b) => ({ ...b })));
    } else {
      const blocks: Block[] = [];
      for (const t of m.thinkingBlocks ?? []) blocks.push({ ...t });
      if (m.content) blocks.push({ type: "text", text: m.content });
      for (const c of m.toolCalls ?? []) blocks.push({ type: "tool_use", id: c.id, name: c.name, input: parseInput(c.arguments) });
      if (blocks.length === 0) blocks.push({ type: "text", text: "(no answer)" });
      push("assistant", blocks);
    }
  }
  return out;
}

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * Prompt-cache breakpoints (Anthropic allows 4): the tool list, the system
 * block, the previous request's last user turn (so this request reads the
 * prefix the last one wrote, however many blocks the round added) and the
 * latest user turn (written now, read by the next step). A tool loop thus
 * pays the full input rate only for the newest turn.
 */
export function markCacheBreakpoints(body: { tools?: Block[]; system: Block[]; messages: { role: string; content: Block[] }[] }): void {
  const lastTool = body.tools?.[body.tools.length - 1];
  if (lastTool) lastTool.cache_control = EPHEMERAL;
  const sys = body.system[body.system.length - 1];
  if (sys) sys.cache_control = EPHEMERAL;
  const users = body.messages.filter((m) => m.role === "user").slice(-2);
  for (const m of users) {
    const last = m.content[m.content.length - 1];
    if (last) m.content[m.content.length - 1] = { ...last, cache_control: EPHEMERAL };
  }
}

export function buildAnthropicBody(cfg: ProviderConfig, req: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> & { system: Block[]; messages: { role: "user" | "assistant"; content: Block[] }[]; tools?: Block[] } = {
    model: cfg.model,
    // The Messages API requires max_tokens: 0 (auto) and -1 (omit) both mean our default.
    max_tokens: [req.maxOutputTokens, cfg.max_output_tokens].find((n): n is number => typeof n === "number" && n > 0) ?? DEFAULT_MAX_TOKENS,
    system: [{ type: "text", text: req.system }],
    messages: toAnthropicMessages(req.messages),
    stream: true,
  };
  if (req.tools.length > 0) body.tools = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  // The provider's own web search (Anthropic, DeepSeek's Anthropic endpoint): first, so a
  // function tool keeps the cache breakpoint; fixed per entry, so the prefix stays stable.
  if (cfg.web_search) body.tools = [{ type: "web_search_20250305", name: "web_search", max_uses: 5 }, ...(body.tools ?? [])];
  markCacheBreakpoints(body);
  applyAnthropicThinking(body, cfg, req.reasoningEffort);
  return mergeExtraBody(body, cfg.extra_body, cfg.name);
}

export const anthropicMessagesUrl = (cfg: ProviderConfig): string => {
  const base = cfg.base_url!;
  if (cfg.full_url) return base;
  return /\/v1\/?$/.test(base) ? joinUrl(base, "messages") : joinUrl(base, "v1/messages");
};

const finishOf = (r: string | undefined): FinishReason =>
  r === "end_turn" || r === "stop_sequence"
    ? "stop"
    : r === "tool_use"
      ? "tool_calls"
      : r === "max_tokens" || r === "model_context_window_exceeded"
        ? "length"
        : r === "refusal"
          ? "refusal"
          : "other";

/** The usage fields Anthropic reports: input_tokens excludes cache reads and writes. */
interface RawUsage { input_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number; output_tokens?: number }

/**
 * Fold one usage object (message_start's, or message_delta's cumulative one)
 * into what was reported so far, then into `usage`: input counts uncached,
 * cache-read and cache-written tokens; writes are also kept apart (priced higher).
 */
function readUsage(usage: Usage, reported: RawUsage, u: unknown): void {
  if (!u || typeof u !== "object") return;
  for (const k of ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens"] as const) {
    const v = (u as Record<string, unknown>)[k];
    // Counts are cumulative: a later report never lowers one (some endpoints send 0 for what they reported before).
    if (typeof v === "number" && Number.isFinite(v)) reported[k] = Math.max(reported[k] ?? 0, v);
  }
  const read = reported.cache_read_input_tokens ?? 0;
  const write = reported.cache_creation_input_tokens ?? 0;
  usage.cacheHitTokens = read;
  usage.inputTokens = (reported.input_tokens ?? 0) + read + write;
  usage.outputTokens = reported.output_tokens ?? 0;
  if (write > 0) usage.cacheWriteTokens = write;
  else delete usage.cacheWriteTokens;
}

/** The argument text of each tool_use block as streamed (the block itself carries the parsed input). */
const rawArguments = new WeakMap<Block, string>();

/** At most this many pause_turn continuations of one answer. */
const MAX_PAUSES = 10;

/** One response of a (possibly paused) answer: its content blocks in order. */
interface StreamPart {
  content: Block[];
  usage: Usage;
  stopReason: string | undefined;
}

function addUsage(into: Usage, u: Usage): void {
  into.inputTokens += u.inputTokens;
  into.outputTokens += u.outputTokens;
  into.cacheHitTokens += u.cacheHitTokens;
  if (u.cacheWriteTokens) into.cacheWriteTokens = (into.cacheWriteTokens ?? 0) + u.cacheWriteTokens;
}

/** Blocks the provider ran itself (server_tool_use, web_search_tool_result…): only the verbatim content can carry them back. */
const isServerBlock = (b: Block): boolean => !["text", "thinking", "redacted_thinking", "tool_use"].includes(String(b.type));

/** The neutral assistant message of an answer's blocks; the blocks themselves are kept when they hold server tool use or the turn was paused. */
function assistantResult(content: Block[], usage: Usage, stopReason: string | undefined, maxTokens: number, paused: boolean): ChatResult {
  let text = "";
  let reasoning = "";
  const thinkingBlocks: ThinkingBlock[] = [];
  const toolCalls: ToolCall[] = [];
  for (const b of content) {
    if (b.type === "text") text += String(b.text ?? "");
    else if (b.type === "thinking") {
      reasoning += String(b.thinking ?? "");
      thinkingBlocks.push(b.signature ? { type: "thinking", thinking: String(b.thinking ?? ""), signature: String(b.signature) } : { type: "thinking", thinking: String(b.thinking ?? "") });
    } else if (b.type === "redacted_thinking") thinkingBlocks.push({ type: "redacted_thinking", data: String(b.data ?? "") });
    else if (b.type === "tool_use") toolCalls.push({ id: String(b.id), name: String(b.name), arguments: rawArguments.get(b) ?? JSON.stringify(b.input ?? {}) });
  }
  const message = {
    role: "assistant" as const,
    content: text,
    ...(reasoning ? { reasoning } : {}),
    ...(thinkingBlocks.length ? { thinkingBlocks } : {}),
    ...(toolCalls.length ? { toolCalls } : {}),
    ...(paused || content.some(isServerBlock) ? { anthropicContent: content } : {}),
  };
  const fr = finishOf(stopReason);
  const finishReason: FinishReason = fr === "length" || fr === "refusal" || !toolCalls.length ? fr : "tool_calls";
  return { message, usage, finishReason, outputLimit: maxTokens };
}

class AnthropicProvider extends ConfiguredProvider implements Provider {
  readonly kind = "anthropic";

  private headers(): Record<string, string> {
    const h: Record<string, string> = { "content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION, ...(this.cfg.headers ?? {}) };
    const key = this.key();
    if (key && this.cfg.auth === "bearer") h.authorization = `Bearer ${key}`;
    else if (key) h["x-api-key"] = key;
    return h;
  }

  async chat(req: ChatRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ChatResult> {
    const url = anthropicMessagesUrl(this.cfg);
    const body = buildAnthropicBody(this.cfg, req);
    const messages = body.messages as { role: string; content: Block[] }[];
    const content: Block[] = [];
    const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheHitTokens: 0 };
    for (let part = 0; ; part++) {
      // A paused turn (server tools ran out of iterations) is continued by sending
      // its content back as the last assistant message, as Anthropic documents.
      const sent = part === 0 ? body : { ...body, messages: [...messages, { role: "assistant", content }] };
      const watch = new StreamWatch(this.cfg, ctxOf(this.cfg, url), handlers.onWaiting, signal);
      let r: StreamPart;
      try {
        r = await this.stream(url, sent, handlers, signal, watch);
      } finally {
        watch.stop();
      }
      content.push(...r.content);
      addUsage(usage, r.usage);
      if (r.stopReason !== "pause_turn") return assistantResult(content, usage, r.stopReason, Number(body.max_tokens), part > 0);
      if (part + 1 >= MAX_PAUSES) {
        throw new ProviderError("bad_response", `${who(ctxOf(this.cfg, url))} paused its turn (stop_reason pause_turn) ${MAX_PAUSES} times in a row; giving up on this answer`, { hint: "ask for less at once (server tools such as web_search run in the provider's own loop)" });
      }
    }
  }

  private async stream(url: string, body: Record<string, unknown>, handlers: StreamHandlers, signal: AbortSignal, watch: StreamWatch): Promise<StreamPart> {
    const ctx = ctxOf(this.cfg, url);
    const res = await providerFetch(url, {
      method: "POST",
      headers: { ...this.headers(), accept: "text/event-stream" },
      body: JSON.stringify(body),
      signal: watch.signal,
    }, ctx, watch.open);
    if (!res.body) throw new ProviderError("stream_cut", `${who(ctx)} sent no body`);

    /** Content blocks by index, as Anthropic sends them; tool inputs arrive as JSON text in `json`. */
    const blocks: { block: Block; json?: string }[] = [];
    const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheHitTokens: 0 };
    const reported: RawUsage = {};
    let stopReason: string | undefined;
    let stopped = false;
    try {
      read: for await (const ev of readSse(res.body, watch)) {
        if (ev.data === "" || ev.event === "ping") continue;
        let d: any;
        try {
          d = JSON.parse(ev.data);
        } catch {
          throw new ProviderError("stream_cut", `${who(ctx)} sent malformed stream data (${ev.data.slice(0, 80)})`);
        }
        switch (d.type ?? ev.event) {
          case "message_start":
            readUsage(usage, reported, d.message?.usage);
            break;
          case "content_block_start": {
            const b = { ...(d.content_block ?? { type: "text", text: "" }) } as Block;
            if (b.type === "text") b.text = typeof b.text === "string" ? b.text : "";
            if (b.type === "thinking") {
              b.thinking = typeof b.thinking === "string" ? b.thinking : "";
              if (!b.signature) delete b.signature;
            }
            // tool_use, server_tool_use, mcp_tool_use…: the input streams as JSON text.
            blocks[d.index] = "input" in b || b.type === "tool_use" || b.type === "server_tool_use" ? { block: b, json: "" } : { block: b };
            break;
          }
          case "content_block_delta": {
            const slot = blocks[d.index];
            const delta = d.delta ?? {};
            if (!slot) break;
            const b = slot.block;
            if (delta.type === "text_delta" && b.type === "text") {
              b.text = `${b.text}${delta.text}`;
              handlers.onText?.(delta.text);
            } else if (delta.type === "thinking_delta" && b.type === "thinking") {
              b.thinking = `${b.thinking}${delta.thinking}`;
              handlers.onReasoning?.(delta.thinking);
            } else if (delta.type === "signature_delta" && b.type === "thinking") {
              b.signature = `${b.signature ?? ""}${delta.signature}`;
            } else if (delta.type === "citations_delta" && b.type === "text") {
              b.citations = [...((b.citations as unknown[]) ?? []), delta.citation];
            } else if (delta.type === "input_json_delta" && slot.json !== undefined) {
              slot.json += delta.partial_json;
            }
            break;
          }
          case "message_delta":
            if (d.delta?.stop_reason) stopReason = d.delta.stop_reason;
            // Cumulative: what it reports replaces what message_start said (some endpoints report input only here).
            readUsage(usage, reported, d.usage);
            break;
          case "message_stop":
            // The answer is complete: do not wait for the server to close.
            stopped = true;
            break read;
          case "error": {
            const type = d.error?.type ?? "error";
            const msg = `${who(ctx)} reported ${type} mid-stream: ${d.error?.message ?? ""}`;
            throw new ProviderError(type === "invalid_request_error" ? "bad_request" : "server", msg);
          }
        }
      }
    } catch (e) {
      if (watch.error) throw watch.error;
      if (e instanceof ProviderError) throw e;
      if (signal.aborted) throw new ProviderError("aborted", "request cancelled", { cause: e });
      throw networkError(ctx, e, true);
    }
    if (stopped) res.body.cancel().catch(() => {});
    if (watch.error) throw watch.error;
    if (!stopped) throw new ProviderError("stream_cut", `${who(ctx)}: the stream ended before the answer was complete (no message_stop)`);
    const content = blocks.filter(Boolean).map(({ block, json }) => {
      if (block.type === "text" && !(block.citations as unknown[] | null)?.length) delete block.citations;
      if (json === undefined) return block;
      const done = { ...block, input: json ? parseInput(json) : (block.input ?? {}) };
      // A tool call keeps its arguments exactly as the model wrote them (a cut-off call stays malformed).
      rawArguments.set(done, json || "{}");
      return done;
    });
    return { content, usage, stopReason };
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const base = this.cfg.base_url!;
    const url = this.cfg.models_url || (/\/v1\/?$/.test(base) ? joinUrl(base, "models") : joinUrl(base, "v1/models"));
    return fetchModelList(url, this.headers(), ctxOf(this.cfg, url), signal);
  }
}

registerProviderKind("anthropic", (cfg, deps) => new AnthropicProvider(cfg, deps));
