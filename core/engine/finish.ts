/**
 * What the loop does with a step's finish reason: the one continuation
 * round after an answer cut off by the output limit, the tool result a
 * cut-off tool call gets, and the message a truncated, filtered, refused or
 * empty turn ends with.
 */
import type { ChatResult, ToolCall } from "../providers/types.ts";
import type { TurnEndReason } from "./types.ts";

const limitText = (limit?: number) => (limit ? `max_tokens ${limit}` : "the provider's default max_tokens");

/** The user message that asks for the rest of a cut-off answer (sent at most once per turn). */
export const continueRequest = (limit?: number): string =>
  `Your previous answer was cut off by the output limit (${limitText(limit)}). Continue exactly where it stopped, without repeating what you already wrote.`;

/** The tool result of a call whose arguments the output limit cut off (it does not run). */
export const cutToolCallResult = (limit?: number): string =>
  `error: your tool call was cut off by the output limit (${limitText(limit)}) before its arguments were complete, so it did not run; split the work into smaller steps (e.g. write a large file in several edits)`;

const parses = (args: string): boolean => {
  try {
    JSON.parse(args || "{}");
    return true;
  } catch {
    return false;
  }
};

/**
 * Calls of a step that stopped at the output limit which were cut off: the
 * last one (the limit struck while it streamed) and any whose arguments do
 * not parse. Earlier complete calls still run.
 */
export function cutOffCalls(result: ChatResult): Set<string> {
  const calls = result.message.toolCalls ?? [];
  const cut = new Set<string>();
  if (result.finishReason !== "length" || calls.length === 0) return cut;
  calls.forEach((c: ToolCall, i) => {
    if (i === calls.length - 1 || !parses(c.arguments)) cut.add(c.id);
  });
  return cut;
}

/** The turn_end error text for a turn that did not end with a usable answer. */
export function endMessage(reason: TurnEndReason, provider: string, limit?: number): string | undefined {
  switch (reason) {
    case "length":
      return `the answer was cut off by the output limit (${limitText(limit)}; finish reason length), even after asking the model to continue once; raise max_output_tokens on [[providers]] "${provider}" or ask for less at a time`;
    case "content_filter":
      return `provider "${provider}" stopped the answer with its content filter (finish reason content_filter); rephrase the request or pick another model with --model`;
    case "refusal":
      return `the model refused to answer (finish reason refusal); rephrase the request or pick another model with --model`;
    case "empty":
      return "the model returned an empty answer (no text and no tool call); run again, or pick another model with --model";
    default:
      return undefined;
  }
}
