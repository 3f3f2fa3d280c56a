// How a turn ends, and a subagent's live progress (the parent session's
// `subagent` event): shared by the engine, every front end and the browser UI.

/**
 * How a turn ended. Beyond done/cancelled/max_steps/denied/error:
 * `length` — the answer was still cut off by the output limit after one
 * continuation round; `content_filter` — the provider's filter stopped it;
 * `refusal` — the model declined; `empty` — the final answer had no text; `needs_user` — the model asked
 * the user a question (the `ask` tool) and no one can answer in this run
 * (headless `reasonix run`, `mcp serve`).
 */
export type TurnEndReason = "done" | "cancelled" | "max_steps" | "denied" | "error" | "length" | "content_filter" | "refusal" | "empty" | "needs_user";

/**
 * Live progress of a subagent: started, each tool call it makes, ended
 * (worded for people by core/agents/events.ts).
 */
export interface SubagentProgress {
  /** The child's name: the task's description or the profile's name. */
  name: string;
  phase: "start" | "tool" | "end";
  /** The child's session (known from start on, unless it failed to open). */
  sessionId?: string;
  /** The parent's `task` call that started it (absent for `/name task`). */
  callId?: string;
  readOnly?: boolean;
  /** phase tool: the tool's name and a short view of its input. */
  tool?: string;
  detail?: string;
  /** phase end: how the child's turn ended. */
  reason?: TurnEndReason;
}
