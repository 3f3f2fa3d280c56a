import type { Message } from "../providers/types.ts";

/** Rough token count (about four characters per token) for budgeting only. */
export function estimateTokens(messages: Message[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += 16 + m.content.length;
    if (m.role === "assistant") {
      chars += m.reasoning?.length ?? 0;
      for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length + 16;
    }
  }
  return Math.ceil(chars / 4);
}

/**
 * Where the verbatim tail starts. The cut lands on a user or assistant
 * message, never on a tool result, so every tool call keeps its result.
 * Returns null when there is no middle worth summarizing.
 */
export function planCompaction(messages: Message[], preamble: number, tailBudgetTokens: number): { keepFrom: number } | null {
  const cuts: number[] = [];
  for (let i = preamble + 1; i < messages.length; i++) if (messages[i]!.role !== "tool") cuts.push(i);
  if (cuts.length === 0) return null;
  let keepFrom = cuts[cuts.length - 1]!;
  for (const i of cuts) {
    if (estimateTokens(messages.slice(i)) <= tailBudgetTokens) {
      keepFrom = i;
      break;
    }
  }
  // Summarizing fewer than two messages saves nothing.
  if (keepFrom - preamble < 2) return null;
  return { keepFrom };
}
