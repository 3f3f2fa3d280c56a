/**
 * The engine's front-end contract. `reasonix run`, the serve/web API and any
 * future front end drive sessions only through these types; the events are
 * what the web UI receives over WebSocket/SSE verbatim.
 */

import type { FileDiff } from "./file-diff.ts";
export type { DiffHunk, FileDiff } from "./file-diff.ts";

import type { ApprovalDecision, PermissionMode, RewindMode, SteerDisposition } from "../protocol/modes.ts";
export type { ApprovalDecision, PermissionMode, RewindMode, SteerDisposition } from "../protocol/modes.ts";

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

import type { SubagentProgress, TurnEndReason } from "../protocol/turn.ts";
import type { McpServerStatus } from "../protocol/mcp.ts";
export type { SubagentProgress, TurnEndReason } from "../protocol/turn.ts";

export type EngineEvent =
  | { type: "session"; sessionId: string; workspace: string; model: string }
  | { type: "turn_start"; sessionId: string; turn: number; prompt: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "text_delta"; text: string }
  /** A complete assistant message (after its deltas). */
  | { type: "assistant"; text: string; reasoning?: string }
  | { type: "tool_call"; callId: string; name: string; input: unknown }
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
  | { type: "compaction"; removedMessages: number; summaryChars: number }
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
  /** Machine-readable pause cause: user, cancelled, error, evaluator, budget_spend, turn_limit, interrupted, denied. */
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

/** Goal mode of one session (core/goal/driver.ts). */
export interface GoalControl {
  /** The session's goal (the latest state), if it ever had one. */
  status(): GoalView | undefined;
  /** True while the goal loop is driving turns. */
  readonly running: boolean;
  /** Start a goal and keep working until it is complete, blocked, paused or cleared; resolves with the final state. */
  start(objective: string): Promise<GoalView>;
  /** Continue a paused goal (a fresh budget/turn slice); resolves like start(). */
  resume(): Promise<GoalView>;
  /** Pause after the running turn (immediately when idle). */
  pause(): GoalView;
  /** Drop the goal (cancels a running goal turn). */
  clear(): GoalView | undefined;
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

/** What an MCP server asks the user (core/engine/elicitation.ts). */
export interface ElicitationAsk {
  server: string;
  message: string;
  schema: Record<string, unknown>;
  callId?: string;
}

/** The user's answer to an elicitation_request. */
export type ElicitAnswer = { action: "accept"; content?: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

export type EngineEventListener = (event: EngineEvent) => void;

/** How a subagent run ended: its session, its final answer. */
export interface SubagentOutcome {
  ok: boolean;
  sessionId?: string;
  reason: TurnEndReason;
  answer: string;
}

export interface SessionSummary {
  id: string;
  workspace: string;
  title: string;
  model: string;
  createdAt: string;
  updatedAt: string;
  turns: number;
  /** A subagent session: the session and tool call that started it (core/agents). */
  parent?: { id: string; callId?: string; agent: string; depth: number; readOnly: boolean };
  /** The session this one was forked from, and the turn it was cut before (absent: its whole conversation). */
  forkedFrom?: { id: string; turn?: number };
}

export interface SubmitOptions {
  /** Pictures pasted or attached in the front end (see core/providers/images.ts); sent only to vision models. */
  images?: import("../providers/images.ts").ImageInput[];
}

/** One live session as a front end sees it. */
export interface EngineSession {
  readonly id: string;
  readonly workspace: string;
  /** The provider entry the session runs on (default_model, --model or the last model switch). */
  readonly model: string;
  /** Subscribe to events; returns an unsubscribe function. */
  subscribe(listener: EngineEventListener): () => void;
  /** Run one user turn to completion (resolves when turn_end was emitted). */
  submit(prompt: string, opts?: SubmitOptions): Promise<TurnEndReason>;
  /** Answer a pending approval_request. */
  approve(callId: string, decision: ApprovalDecision): void;
  /**
   * The front end shows elicitation_request events and answers them. Until
   * it says so (and always in a headless run) MCP input requests are declined.
   */
  offerElicitation(on: boolean): void;
  /** Answer a pending elicitation_request; an accepted form that does not fit its schema throws, naming the field. */
  answerElicitation(id: string, answer: ElicitAnswer): void;
  /** Cancel the running turn, if any. */
  cancel(): void;
  readonly busy: boolean;
  /** Conversation so far, as displayable events (for reloads/resume). */
  history(): EngineEvent[];
  close(): Promise<void>;
  /** Turns still in the conversation (rewind targets). */
  turns(): { turn: number; prompt: string }[];
  /** Switch the permission mode for the rest of the session (e.g. leave plan mode). */
  setPermissionMode(mode: PermissionMode): void;
  /**
   * The reasoning effort for the rest of the session ("none" … "max", see
   * core/providers/reasoning.ts); undefined goes back to the provider entry's
   * reasoning_effort. Request bodies change, the replayed prefix does not.
   */
  setReasoningEffort(effort: string | undefined): void;
  /** The effort set with setReasoningEffort (undefined: the provider entry's). */
  readonly reasoningEffort: string | undefined;
  /** Go back to just before `turn`: restore files ("code"), the conversation, or both. */
  rewind(turn: number, mode: RewindMode): Promise<RewindResult>;
  /**
   * Guidance for the running turn, injected as a user message at its next
   * model step ("steer_accepted"); when idle it waits for the next turn
   * ("queued_followup").
   */
  steer(text: string): SteerDisposition;
  /** Goal mode: keep working across turns toward an objective (core/goal). */
  readonly goal: GoalControl;
  /**
   * Summarize the conversation now (`/compact`): the old middle becomes a
   * model-written summary, the recent tail stays verbatim, the system prompt
   * and tools are untouched. Null when there is nothing worth compacting;
   * rejects while a turn runs.
   */
  compact(): Promise<{ removedMessages: number; summaryChars: number } | null>;
}

export interface RewindResult {
  turn: number;
  mode: RewindMode;
  files: { path: string; action: "restored" | "deleted" }[];
}

export interface ModelInfo {
  /** Provider entry name (what default_model / --model refer to). */
  name: string;
  kind: "openai" | "anthropic" | "responses";
  model: string;
  /** False when the provider's api_key_env has no value in $REASONIX_HOME/.env. */
  hasKey: boolean;
  apiKeyEnv?: string;
  /** `context_window` of the entry (tokens), when set. */
  contextWindow?: number;
  /** The entry says `vision = true` (user messages may carry images). */
  vision?: boolean;
}

/** One engine per workspace; serve/web and `run` create it from config. */
export interface Engine {
  readonly workspace: string;
  createSession(opts?: { model?: string }): Promise<EngineSession>;
  /** With `model`: continue the conversation on another provider entry (recorded in the log). */
  resumeSession(id: string, opts?: { model?: string }): Promise<EngineSession>;
  /**
   * A new session holding this one's conversation just before `turn` (absent:
   * up to its last finished turn), linked to it in its log. The original is
   * untouched; files on disk are not rewound (see core/sessions/fork.ts).
   */
  forkSession(id: string, opts?: { turn?: number }): Promise<EngineSession>;
  /** Set the session's title ("" = back to its first prompt); returns the title now shown. */
  renameSession(id: string, title: string): Promise<string>;
  listSessions(): Promise<SessionSummary[]>;
  deleteSession(id: string): Promise<void>;
  models(): ModelInfo[];
  /** Ask a provider entry's endpoint which models it serves (models_url or /models). */
  discoverModels(name: string): Promise<string[]>;
  /** The workspace's MCP servers as they are now (for a `/mcp` listing); empty when none are declared. */
  mcpServers(): McpServerStatus[];
  /**
   * Run a subagent profile (a `runAs: subagent` skill) on a task in its own
   * session, outside any parent (`reasonix subagent try|run`); `readOnly`
   * gives it the strict read-only tools whatever the profile says.
   */
  runSubagent(name: string, task: string, opts: { readOnly: boolean; signal?: AbortSignal; onProgress?(p: SubagentProgress): void }): Promise<SubagentOutcome>;
  /**
   * Catalog sources the engine adds to the workspace's files: the MCP
   * servers' prompts as `/mcp__<server>__<prompt>` (their list grows as
   * servers come up; see CommandSource.stamp). Front ends register these in
   * their command registry so `/` lists what the engine will expand.
   */
  commandSources(): import("../commands/types.ts").CommandSource[];
  /** Resolves when every MCP server has finished starting (ready or failed); at once when there are none. */
  mcpStarted(): Promise<void>;
  close(): Promise<void>;
}
