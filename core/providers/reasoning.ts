/**
 * Per-vendor reasoning request shapes. A provider entry says
 * `capability = "auto" | "deepseek-thinking" | "openai-reasoning" | "plain"`
 * and `thinking = "auto" | "enabled" | "disabled" | "adaptive"`; "auto"
 * detects the vendor from the base URL and model id. The shape decides which
 * control fields go into the body, which effort levels exist, whether an
 * assistant message's reasoning_content is replayed, and which field carries
 * the output limit.
 *
 * The replay rule depends only on the entry, never on the session's effort,
 * so the replayed prefix stays byte-identical for the whole session.
 */
import type { ProviderConfig } from "./types.ts";
import { EFFORTS, type Effort } from "../protocol/modes.ts";

export type Capability = "auto" | "deepseek-thinking" | "openai-reasoning" | "plain";
export type ThinkingMode = "auto" | "enabled" | "disabled" | "adaptive";
export const CAPABILITIES: readonly Capability[] = ["auto", "deepseek-thinking", "openai-reasoning", "plain"];
export const THINKING_MODES: readonly ThinkingMode[] = ["auto", "enabled", "disabled", "adaptive"];

/** Every effort word a user may type (core/protocol); each vendor maps it onto its own scale. */
export { EFFORTS, type Effort };

export type Vendor = "deepseek" | "minimax" | "glm" | "kimi" | "ollama-cloud" | "openai" | "plain";

export interface ReasoningShape {
  vendor: Vendor;
  /** Which assistant messages carry reasoning_content back: none, tool-calling steps, or all. */
  replay: "none" | "tool-steps" | "all";
  /** The body field for the output limit (Chat Completions). */
  tokenField: "max_tokens" | "max_completion_tokens";
  /** The effort values this vendor accepts, lowest first (empty: no effort field). */
  efforts: readonly string[];
}

/** The lower-case host of a URL ("" when it is not one). */
export const hostOf = (url: string | undefined): string => {
  try {
    return new URL(url ?? "").hostname.toLowerCase();
  } catch {
    return "";
  }
};

/** Host h is domain d or one of its subdomains (never a look-alike such as d.evil.test). */
export const onDomain = (h: string, d: string): boolean => h === d || h.endsWith(`.${d}`);

/** The vendor behind an entry, from its base URL first, then its model id. */
export function detectVendor(cfg: Pick<ProviderConfig, "base_url" | "model">): Exclude<Vendor, "plain"> {
  const h = hostOf(cfg.base_url);
  const m = (cfg.model ?? "").toLowerCase();
  const on = (...domains: string[]) => domains.some((d) => onDomain(h, d));
  if (on("deepseek.com")) return "deepseek";
  if (on("minimax.io", "minimaxi.com", "minimax.chat")) return "minimax";
  if (on("bigmodel.cn", "z.ai")) return "glm";
  if (on("moonshot.cn", "moonshot.ai", "kimi.com")) return "kimi";
  if (on("ollama.com")) return "ollama-cloud";
  // Gateways (OpenRouter, local servers…) carry the vendor only in the model id.
  const id = m.split("/").pop()!;
  if (id.startsWith("deepseek")) return "deepseek";
  if (id.startsWith("minimax")) return "minimax";
  if (id.startsWith("glm")) return "glm";
  if (id.startsWith("kimi")) return "kimi";
  return "openai";
}

const OPENAI_EFFORTS = ["minimal", "low", "medium", "high"] as const;

/** OpenAI's reasoning model families (o1, o3, o4-mini, gpt-5, gpt-5.1-codex…), also behind a gateway ("openai/o3"). */
export const isOpenAIReasoningModel = (model: string): boolean => /^(o\d+(-|$)|gpt-5)/.test(model.toLowerCase().split("/").pop()!);

/** The request shape of an entry (its capability and thinking settings applied). */
export function reasoningShape(cfg: ProviderConfig): ReasoningShape {
  const cap = (cfg.capability ?? "auto") as Capability;
  if (cap === "plain") return { vendor: "plain", replay: "none", tokenField: "max_tokens", efforts: [] };
  const vendor = cap === "deepseek-thinking" ? "deepseek" : cap === "openai-reasoning" ? "openai" : detectVendor(cfg);
  const model = (cfg.model ?? "").toLowerCase();
  switch (vendor) {
    case "deepseek":
      // deepseek-reasoner rejects reasoning_content in input messages; the
      // thinking mode of the chat models wants it back on tool-calling steps.
      return { vendor, replay: /reasoner/.test(model) ? "none" : "tool-steps", tokenField: "max_tokens", efforts: ["high", "max"] };
    case "minimax":
      return { vendor, replay: "none", tokenField: "max_tokens", efforts: [] };
    case "glm":
      return { vendor, replay: "tool-steps", tokenField: "max_tokens", efforts: [] };
    case "kimi":
      // Kimi's thinking models keep whole assistant messages, reasoning included.
      return { vendor, replay: "all", tokenField: "max_completion_tokens", efforts: OPENAI_EFFORTS };
    case "ollama-cloud":
      return { vendor, replay: "tool-steps", tokenField: "max_tokens", efforts: ["low", "medium", "high", "max"] };
    default:
      // A gateway that streamed reasoning_content for a tool-calling step
      // takes it back (OpenRouter, vLLM, SGLang…); models without it send none.
      // OpenAI's reasoning models (o-series, gpt-5…) reject max_tokens.
      return { vendor: "openai", replay: "tool-steps", tokenField: cap === "openai-reasoning" || isOpenAIReasoningModel(model) ? "max_completion_tokens" : "max_tokens", efforts: OPENAI_EFFORTS };
  }
}

/**
 * Map a requested effort onto a vendor's scale: an exact match stays, a
 * higher word takes the vendor's top, a lower one its nearest level at or
 * above it ("none" stays "none" only where the scale has it).
 */
export function effortFor(shape: ReasoningShape, effort: string | undefined): string | undefined {
  if (!effort || shape.efforts.length === 0) return undefined;
  if (shape.efforts.includes(effort)) return effort;
  const rank = EFFORTS.indexOf(effort as Effort);
  if (rank < 0) return undefined;
  const scale = shape.efforts.map((e) => EFFORTS.indexOf(e as Effort));
  const above = shape.efforts.find((_, i) => scale[i]! >= rank);
  return above ?? shape.efforts[shape.efforts.length - 1];
}

export function isEffort(v: unknown): v is Effort {
  return typeof v === "string" && (EFFORTS as readonly string[]).includes(v);
}

/**
 * Write the reasoning control fields for a Chat Completions body:
 * DeepSeek `thinking.type` + `reasoning_effort` (no effort when disabled),
 * MiniMax `thinking.type` adaptive/disabled, GLM `thinking.type`, Kimi and
 * OpenAI-style `reasoning_effort`, Ollama Cloud's scale with `max`; plain
 * sends nothing. `effort` is the session's choice, else the entry's.
 */
export function applyChatReasoning(body: Record<string, unknown>, cfg: ProviderConfig, effort: string | undefined): void {
  const shape = reasoningShape(cfg);
  if (shape.vendor === "plain") return;
  const thinking = (cfg.thinking ?? "auto") as ThinkingMode;
  const want = effort ?? cfg.reasoning_effort;
  if (shape.vendor === "minimax") {
    if (thinking === "disabled" || want === "none") body.thinking = { type: "disabled" };
    else if (thinking !== "auto") body.thinking = { type: "adaptive" };
    return;
  }
  if (shape.vendor === "deepseek" || shape.vendor === "glm" || shape.vendor === "kimi") {
    const off = thinking === "disabled" || want === "none";
    if (off) body.thinking = { type: "disabled" };
    else if (thinking === "enabled" || thinking === "adaptive") body.thinking = { type: thinking === "adaptive" && shape.vendor !== "deepseek" ? "adaptive" : "enabled" };
    if (off) return;
  }
  const e = effortFor(shape, want === "none" && shape.vendor !== "openai" ? undefined : want);
  if (e) body.reasoning_effort = e;
}

/** Whether an assistant message's reasoning goes back to the vendor. */
export function replaysReasoning(shape: ReasoningShape, hasToolCalls: boolean): boolean {
  return shape.replay === "all" || (shape.replay === "tool-steps" && hasToolCalls);
}

const ANTHROPIC_BUDGET: Record<string, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768, max: 32768 };

/**
 * Anthropic Messages thinking: `thinking = "enabled"` (or an effort) sends
 * `{type:"enabled", budget_tokens}` kept under max_tokens; "adaptive" sends
 * `{type:"adaptive"}`; "disabled" or effort "none" sends `{type:"disabled"}`.
 */
export function applyAnthropicThinking(body: Record<string, unknown>, cfg: ProviderConfig, effort: string | undefined): void {
  if (cfg.capability === "plain") return;
  const thinking = (cfg.thinking ?? "auto") as ThinkingMode;
  const want = effort ?? cfg.reasoning_effort;
  if (thinking === "disabled" || want === "none") {
    body.thinking = { type: "disabled" };
    return;
  }
  if (thinking === "adaptive") {
    body.thinking = { type: "adaptive" };
    return;
  }
  if (thinking === "enabled" || (want && ANTHROPIC_BUDGET[want])) {
    const max = Number(body.max_tokens);
    const budget = Math.max(1024, Math.min(ANTHROPIC_BUDGET[want ?? "medium"] ?? 8192, max - 1024));
    if (max > 1024) body.thinking = { type: "enabled", budget_tokens: budget };
  }
}

/** Responses API: `reasoning: {effort}` on OpenAI's scale (none included); nothing when thinking is disabled. */
export function applyResponsesReasoning(body: Record<string, unknown>, cfg: ProviderConfig, effort: string | undefined): void {
  if (cfg.capability === "plain" || cfg.thinking === "disabled") return;
  const want = effort ?? cfg.reasoning_effort;
  if (!want) return;
  const e = want === "none" ? "none" : effortFor({ vendor: "openai", replay: "none", tokenField: "max_tokens", efforts: ["minimal", "low", "medium", "high", "xhigh"] }, want);
  if (e) body.reasoning = { effort: e, summary: "auto" };
}
