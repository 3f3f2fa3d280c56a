/**
 * The engine's front-end contract. `reasonix run`, the serve/web API and any
 * future front end drive sessions only through these types; the events are
 * what the web UI receives over WebSocket/SSE verbatim. Types only, and
 * browser-safe like the rest of core/protocol (core/engine/types.ts re-exports it).
 */

import type { ElicitAnswer, EngineEvent, EngineEventListener, GoalView, QuestionAnswer } from "./events.ts";
export type {
  DiffHunk,
  ElicitAnswer,
  EngineEvent,
  EngineEventListener,
  FileDiff,
  GoalChange,
  GoalStatus,
  GoalView,
  GuardianReview,
  PersistTargets,
  Plan,
  PlanRoute,
  Question,
  QuestionAnswer,
  QuestionOption,
  RoleSpend,
  TodoItem,
  Usage,
  UsageRole,
} from "./events.ts";

import type { ApprovalDecision, PermissionMode, RewindMode, SteerDisposition } from "./modes.ts";
export type { ApprovalDecision, PermissionMode, RewindMode, SteerDisposition } from "./modes.ts";
import type { SubagentProgress, TurnEndReason } from "./turn.ts";
import type { McpServerStatus } from "./mcp.ts";
export type { SubagentProgress, TurnEndReason } from "./turn.ts";
import type { CommandSource } from "./catalog.ts";

/** A picture attached to a prompt (core/providers/images.ts reads and checks them). */
export interface ImageInput {
  /** image/png, image/jpeg, image/gif or image/webp. */
  mediaType: string;
  /** Base64 bytes (a local or pasted image)… */
  data?: string;
  /** …or a URL the provider fetches itself. */
  url?: string;
  /** Where it came from, for messages (a path or "pasted"). */
  name?: string;
}

/** A background shell job (core/tools/jobs.ts runs them). */
export type JobStatus = "running" | "exited" | "killed";

export interface JobInfo {
  id: string;
  command: string;
  status: JobStatus;
  /** Set once the job ended on its own (null when a signal ended it). */
  exitCode: number | null;
  signal: string | null;
  /** Milliseconds since the epoch. */
  startedAt: number;
  endedAt?: number;
  /** The process (group leader) the job runs as. */
  pid: number;
  /** Output bytes kept on disk, and bytes dropped beyond the cap. */
  kept: number;
  dropped: number;
}

/** Goal mode of one session (core/goal/driver.ts). */
export interface GoalControl {
  /** The session's goal (the latest state), if it ever had one. */
  status(): GoalView | undefined;
  /** True while the goal loop is driving turns. */
  readonly running: boolean;
  /** Hears the goal loop stop (running false again). Returns the way to stop listening. */
  onStopped(listener: () => void): () => void;
  /** Start a goal and keep working until it is complete, blocked, paused or cleared; resolves with the final state. */
  start(objective: string): Promise<GoalView>;
  /** Continue a paused goal (a fresh budget/turn slice); resolves like start(). */
  resume(): Promise<GoalView>;
  /** Pause after the running turn (immediately when idle). */
  pause(): GoalView;
  /** Drop the goal (cancels a running goal turn). */
  clear(): GoalView | undefined;
}

/** What an MCP server asks the user (core/engine/elicitation.ts). */
export interface ElicitationAsk {
  server: string;
  message: string;
  schema: Record<string, unknown>;
  callId?: string;
}

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
  images?: ImageInput[];
}

/** One live session as a front end sees it. */
export interface EngineSession {
  readonly id: string;
  readonly workspace: string;
  /** What opening this session had to repair: tool calls a stopped process left unanswered. */
  readonly recovered: { readonly interruptedTools: number };
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
  /**
   * Answer a pending question_request (the `ask` tool). Throws when none
   * waits under that id or when the answer does not fit the question (a
   * label that is not an option, several picks for a single-choice question,
   * text where none is allowed, nothing at all).
   */
  answerQuestion(callId: string, answer: QuestionAnswer): void;
  /** Cancel the running turn, if any. */
  cancel(): void;
  readonly busy: boolean;
  /** Conversation so far, as displayable events (for reloads/resume). */
  history(): EngineEvent[];
  /**
   * End the session: a running turn is cancelled, background jobs are killed.
   * `keepJobs`: the conversation is reopened at once (a model switch), so its
   * jobs wait in the engine for the session that resumes it.
   */
  close(opts?: { keepJobs?: boolean }): Promise<void>;
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
   * ("queued_followup"). A turn that has made its last check for guidance
   * (it is finishing) no longer takes any: "queued_followup" then too.
   */
  steer(text: string): SteerDisposition;
  /**
   * A turn runs and will still read guidance at a model step: what steer()
   * gives now reaches this turn. False once the turn has made its last check
   * (it is finishing, its end not yet reported), and between turns.
   */
  readonly takesSteering: boolean;
  /**
   * Between turns: what the user steered that no turn read (the turn it was
   * sent to ended first: its step limit, a planner-only turn, a goal loop
   * stopping), in the order sent, taken out of the waiting guidance so the
   * caller can send it as the next turn's prompt. Empty while a turn runs.
   */
  takeUnreadSteers(): string[];
  /** Goal mode: keep working across turns toward an objective (core/goal). */
  readonly goal: GoalControl;
  /**
   * Summarize the conversation now (`/compact`): the old middle becomes a
   * model-written summary, the recent tail stays verbatim, the system prompt
   * and tools are untouched. Null when there is nothing worth compacting;
   * rejects while a turn runs.
   */
  compact(): Promise<{ removedMessages: number; summaryChars: number } | null>;
  /** The background shell jobs this session started (bash run_in_background), oldest first; they end when it closes. */
  listJobs(): JobInfo[];
  /**
   * A shell line the user typed (the chat's `!command`): run like the agent's
   * bash tool — sandbox, permission rules, the session's mode, an approval
   * when a rule asks — and shown as a bash card (tool_call / tool_result
   * events). Its output joins the next turn's user message, never the system
   * prompt or the tools. Rejects while a turn runs.
   */
  runShell(command: string): Promise<ShellRun>;
}

/** How a user's shell line went: its output, or why it did not run. */
export interface ShellRun {
  ok: boolean;
  /** The command's output (stdout and stderr), or the refusal. */
  output: string;
  /** True when the rules, the mode or the user refused it (it never ran). */
  refused?: boolean;
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
  /** This workspace's sessions, newest first; without `all`, not those never prompted (nothing to resume). */
  listSessions(o?: { all?: boolean }): Promise<SessionSummary[]>;
  deleteSession(id: string): Promise<void>;
  models(): ModelInfo[];
  /** Ask a provider entry's endpoint which models it serves (models_url or /models). */
  discoverModels(name: string, signal?: AbortSignal): Promise<string[]>;
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
  commandSources(): CommandSource[];
  /** Resolves when every MCP server has finished starting (ready or failed); at once when there are none. */
  mcpStarted(): Promise<void>;
  close(): Promise<void>;
}
