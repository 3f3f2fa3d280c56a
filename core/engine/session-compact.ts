/** Compaction inside a session: past compact_ratio of the window, the old middle becomes a summary. */
import { chatWithRetry } from "../providers/retry.ts";
import type { ChatRequest } from "../providers/types.ts";
import { planCompaction, estimateTokens } from "./compaction.ts";
import { COMPACTION_REQUEST, wrapSummary } from "./prompt.ts";
import type { SessionCore } from "./session-core.ts";
import { recordUsage } from "./usage.ts";

/**
 * Past compact_ratio of the context window, ask the model for a summary of
 * the old middle and keep the recent tail verbatim. Uses the same system
 * prompt and tools, so even the summary request reuses the cached prefix.
 */
export async function maybeCompact(
  s: SessionCore,
  turn: number,
  signal: AbortSignal,
  last?: { tokens: number; messages: number },
  force = false,
  trigger: "auto" | "overflow" | "manual" = force ? "overflow" : "auto",
): Promise<{ last?: { tokens: number; messages: number }; compacted: boolean; removed?: number; summaryChars?: number }> {
  const unchanged = { last, compacted: false };
  const msgs = s.state.messages;
  // The provider's own count of the last prompt is best; our estimate guards
  // against endpoints that report no (or too little) usage.
  const prefix = Math.ceil((s.deps.system.length + JSON.stringify(s.schemas).length) / 4);
  const local = estimateTokens(msgs) + prefix;
  const estimate = Math.max(local, last ? last.tokens + estimateTokens(msgs.slice(last.messages)) : 0);
  const window = s.provider.contextWindow > 0 ? s.provider.contextWindow : force ? estimate : 0;
  if (window <= 0) return unchanged;
  if (!force && estimate < s.deps.compactRatio * window) return unchanged;
  // Asked for (/compact): the tail is a fifth of the conversation itself, so even a short one compacts.
  // With no known window (an overflow), the tail is a fifth of the conversation: the system prompt and tools are not kept "tail".
  const tail = trigger === "manual" ? estimateTokens(msgs.slice(s.state.preamble)) : s.provider.contextWindow > 0 ? Math.min(window, estimate) : Math.max(1, estimate - prefix);
  const plan = planCompaction(msgs, s.state.preamble, Math.floor(tail * 0.2));
  if (!plan) return unchanged;
  await s.deps.hooks?.fire("PreCompact", { trigger }, signal);
  const req: ChatRequest = {
    system: s.deps.system,
    tools: s.schemas,
    messages: [...msgs.slice(0, plan.keepFrom), { role: "user", content: COMPACTION_REQUEST }],
  };
  const res = await chatWithRetry(s.provider, req, { onWaiting: (n) => s.emit({ type: "waiting", ...n }) }, signal, s.deps.retry, {
    onRetry: (n) => s.emit({ type: "retry", attempt: n.attempt, delayMs: n.delayMs, reason: n.reason }),
  });
  recordUsage(s, turn, res.usage);
  const text = res.message.content.trim();
  if (!text) return unchanged;
  const summary = wrapSummary(text);
  s.commit({ t: "compaction", turn, headCount: s.state.preamble, keepFrom: plan.keepFrom, summary });
  const removed = plan.keepFrom - s.state.preamble;
  s.emit({ type: "compaction", removedMessages: removed, summaryChars: summary.length, trigger });
  return { last: undefined, compacted: true, removed, summaryChars: summary.length };
}
