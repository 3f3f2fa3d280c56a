/**
 * The events a session emits, as every front end receives them: the terminal
 * chat, line mode, `reasonix run`, the web UI (over WebSocket/SSE, verbatim)
 * and ACP. One definition, browser-safe: nothing here imports outside
 * core/protocol. core/protocol/fold.ts folds them into a transcript.
 */
import type { ApprovalDecision } from "./modes.ts";
import type { SubagentProgress, TurnEndReason } from "./turn.ts";

export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Each line starts with " ", "-" or "+". */
  lines: string[];
}

/** What a writer tool changes in one file, as unified hunks (computed by core/engine/file-diff.ts). */
export interface FileDiff {
  /** Workspace-relative when inside the workspace, else absolute. */
  path: string;
  /** Where a moved file came from. */
  from?: string;
  kind: "add" | "modify" | "delete" | "move";
  added: number;
  removed: number;
  hunks: DiffHunk[];
  /** Hunks were cut at MAX_LINES, or the file was too big or binary to diff. */
  truncated?: boolean;
}

/** Where an "allow always" answer would save its rule: file and exact rule text, per choice. */
export interface PersistTargets {
  user: { path: string; rule: string };
  project: { path: string; rule: string };
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens served from the provider's cache. */
  cacheHitTokens: number;
  /** Prompt tokens written to the provider's cache (Anthropic), part of inputTokens; priced apart. */
  cacheWriteTokens?: number;
  /** Reasoning tokens when the provider reports them. */
  reasoningTokens?: number;
  /** Model steps counted here whose provider reported no usage: their tokens are unknown, not zero. */
  unreported?: number;
}

export interface TodoItem {
  content: string;
  status: "pending" | "in_progress" | "completed";
}


export type EngineEvent =
  | { type: "session"; sessionId: string; workspace: string; model: string }
  | { type: "turn_start"; sessionId: string; turn: number; prompt: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "text_delta"; text: string }
  /** A complete assistant message (after its deltas). */
  | { type: "assistant"; text: string; reasoning?: string }
  /** `user`: the user's own shell line (`!command`), not a model's call. */
  | { type: "tool_call"; callId: string; name: string; input: unknown; user?: true }
  | {
      type: "approval_request";
      callId: string;
      name: string;
      input: unknown;
      /** One-line human summary, e.g. "bash: npm test" or "edit src/a.ts". */
      summary: string;
      /** The rule that "allow for session/persist" would store, e.g. "Bash(npm test)". */
      suggestedRule: string;
      /** For file writers: what the call would change (unified hunks). */
      diff?: FileDiff[];
      /** Where "persist" / "persist_project" would write, so front ends can say so before the user picks. */
      persistTo?: PersistTargets;
    }
  | { type: "approval_resolved"; callId: string; decision: ApprovalDecision }
  /**
   * An MCP server asks the user for input (elicitation, form mode): answer
   * with answerElicitation. `schema` is the server's requestedSchema (an
   * object of primitive fields); `callId` the tool call it came during.
   */
  | { type: "elicitation_request"; id: string; server: string; message: string; schema: Record<string, unknown>; callId?: string }
  | { type: "elicitation_resolved"; id: string; action: ElicitAnswer["action"] }
  /**
   * The model asks the user a question (the `ask` tool): answer with
   * EngineSession.answerQuestion. The turn waits for it in every permission
   * mode; cancelling the turn dismisses it. Not recorded: history() lists it
   * while it waits, and the tool result records the answer.
   */
  | ({ type: "question_request" } & Question)
  | { type: "question_resolved"; callId: string; answer: QuestionAnswer }
  /** `diff`: for file writers that succeeded, what landed on disk. */
  | { type: "tool_result"; callId: string; name: string; ok: boolean; output: string; receipt?: string; diff?: FileDiff[] }
  | { type: "todo"; items: TodoItem[] }
  /** Progress of a running tool call (MCP progress notifications); live only, not in history. */
  | { type: "tool_progress"; callId: string; progress: number; total?: number; message?: string }
  | {
      type: "usage";
      turn: Usage;
      total: Usage;
      cacheHitPercent: number;
      /** Spend so far, when the model has prices (entry `prices` or the rate card). */
      cost?: { turn: number; total: number; currency: string };
      /** What cache hits saved in the session so far, in cost's currency. */
      cacheSaved?: number;
      /** The step reported here was the planner's, the Guardian's or the goal evaluator's (absent: the executor's). */
      role?: UsageRole;
      /** Session spend by role, once the planner or the Guardian spent any; `total` and `cost` include it. */
      byRole?: Partial<Record<UsageRole, RoleSpend>>;
    }
  /** trigger: past compact_ratio ("auto"), after the provider refused an overlong prompt ("overflow"), or asked for (/compact, "manual"); absent in replayed history. */
  | { type: "compaction"; removedMessages: number; summaryChars: number; trigger?: "auto" | "overflow" | "manual" }
  /**
   * A model step is being retried. Text/reasoning deltas streamed since the
   * last `assistant` event belonged to the failed attempt: drop them.
   */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  /**
   * The model attempt that streamed the deltas since the last `assistant`
   * (or `attempt_discarded`) event failed: drop those text_delta and
   * reasoning_delta events. Sent before the `retry` that follows, and also
   * when no retry follows (the step failed or was cancelled).
   */
  | { type: "attempt_discarded"; attempt: number; reason: string }
  /**
   * The provider has sent nothing for `seconds` (phase first_byte: since the
   * request; idle: since the last byte). The attempt is abandoned and retried
   * at `timeoutSeconds` (the provider entry's `setting`).
   */
  | { type: "waiting"; phase: "first_byte" | "idle"; seconds: number; timeoutSeconds: number; setting: string }
  /**
   * The answer was cut off by the output limit and the engine asks the model
   * once to continue: the next `assistant` text continues the previous one.
   */
  | { type: "continuation"; reason: "length"; outputLimit?: number }
  | { type: "turn_end"; turn: number; reason: TurnEndReason; error?: string }
  /**
   * Something the user should know that is not an error, e.g. an instruction
   * file that was skipped. Recorded in the session (so it is in history() and
   * every front end shows it once), never sent to the model.
   */
  | { type: "warning"; code: string; message: string }
  /**
   * The planner (core/planner) delivered a plan for an explicit plan request.
   * `text` is the plan rendered as Markdown for front ends that just print it.
   * Recorded, so history() replays it.
   */
  | { type: "plan"; route: PlanRoute; plan: Plan; text: string }
  /**
   * Goal mode (core/goal): the goal's state changed. `goal` is the whole
   * state after the change; `message` says why (a pause reason, the budget
   * summary, a strategy redirect). Recorded, so history() replays it.
   */
  | { type: "goal"; change: GoalChange; goal: GoalView; message?: string }
  /**
   * The Guardian (core/guardian) reviewed tool call `callId` before it ran.
   * Recorded, so history() replays it. See GuardianReview.
   */
  | ({ type: "guardian" } & GuardianReview)
  /**
   * A subagent of this session started, called a tool, or ended (live only,
   * not replayed; the task's receipt names the child's session). Comes also
   * before turn_start, when `/name task` runs a profile while the message is prepared.
   */
  | ({ type: "subagent" } & SubagentProgress)
  | { type: "error"; code: string; message: string };

/** Who spent tokens besides the executor's turns (goal_evaluator: goal mode's judge, on the session's own model). */
export type UsageRole = "planner" | "guardian" | "goal_evaluator";

/** One role's spend in a session so far; `cost` in the usage event's currency, when priced. */
export interface RoleSpend {
  usage: Usage;
  cost?: number;
}

/**
 * A Guardian review of one call. `outcome`: allow (it ran unasked), deny
 * (refused; `reason` went to the model), ask (a human decides: high risk
 * without authorization, or no verdict). `risk` and `authorization` are
 * absent when no valid verdict came (`unavailable`, the cause in `reason`).
 */
export interface GuardianReview {
  callId: string;
  name: string;
  summary: string;
  outcome: "allow" | "deny" | "ask";
  risk?: "low" | "medium" | "high" | "critical";
  authorization?: "high" | "medium" | "low" | "unknown";
  reason: string;
  unavailable?: boolean;
}

export type GoalStatus = "active" | "paused" | "complete" | "blocked" | "cleared";
export type GoalChange = "started" | "turn" | "redirect" | "signoff" | "paused" | "resumed" | "complete" | "blocked" | "cleared";

/** A goal as front ends show it (see docs/goal.md). */
export interface GoalView {
  objective: string;
  status: GoalStatus;
  /** Why it is paused, blocked or complete (a short sentence). */
  reason?: string;
  /** Machine-readable pause cause: user, cancelled, error, evaluator, budget_spend, turn_limit, interrupted, denied, needs_user. */
  pauseCode?: string;
  startedAt: string;
  /** Cumulative statistics across pauses and resumes. */
  turns: number;
  requests: number;
  tokens: number;
  workMs: number;
  /** The last evidence the model reported with update_goal. */
  evidence?: string;
  /** Checks the model said it could not run (update_goal completion.unverified). */
  unverified?: string[];
  /** Todo steps signed off with complete_step, in order. */
  signoffs: { step: string; evidence: string }[];
  /** [agent] goal_token_budget in force (0 = off) and the token count where the current slice began. */
  tokenBudget: number;
  budgetFrom: number;
  /** [agent] goal_max_turns in force (0 = off) and the turn count where the current slice began. */
  maxTurns: number;
  turnsFrom: number;
}

/** How an explicit plan request is routed (core/planner/detect.ts). */
export type PlanRoute = "plan_first" | "plan_only" | "plan_approval" | "goal";

/** A structured plan (the planner's submit_plan). */
export interface Plan {
  summary: string;
  steps: string[];
  /** Files/symbols the planner actually looked at, vs ones it expects but did not check. */
  verifiedTouchpoints: string[];
  candidateTouchpoints: string[];
  nonGoals: string[];
  risks: string[];
  acceptanceCriteria: string[];
  verificationCommands: string[];
}

/** One choice of a question. */
export interface QuestionOption {
  label: string;
  description?: string;
}

/** What the `ask` tool asks: `options` to pick from (none: free text only), one or several (`multi`), and whether the user may also write an answer of their own (`allowText`). */
export interface Question {
  callId: string;
  question: string;
  options: QuestionOption[];
  multi: boolean;
  allowText: boolean;
}

/**
 * The user's answer to a question_request: the labels picked (in the order
 * of the options) and/or their own text, or dismissed (Esc, a cancelled
 * turn; `reason` when no one could be asked).
 */
export type QuestionAnswer = { choices: string[]; text?: string } | { dismissed: true; reason?: string };

/** The user's answer to an elicitation_request. */
export type ElicitAnswer = { action: "accept"; content?: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

export type EngineEventListener = (event: EngineEvent) => void;

