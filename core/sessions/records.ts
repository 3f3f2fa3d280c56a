/** What a session log (`$REASONIX_HOME/sessions/<id>.jsonl`) holds, one record per line. */
import type { FileDiff, GoalChange, GoalView, GuardianReview, Plan, PlanRoute, Question, QuestionAnswer, TodoItem, TurnEndReason, Usage, UsageRole } from "../engine/types.ts";
import type { Message } from "../providers/types.ts";

import type { RewindMode } from "../protocol/modes.ts";
export type { RewindMode };

export type SessionRecord =
  | { t: "meta"; v: 1; id: string; workspace: string; model: string; createdAt: string }
  | { t: "turn_start"; turn: number; prompt: string; at: string }
  /**
   * A conversation message. turn 0 = session preamble (project instructions).
   * `continuation`: the request for the rest of an answer the output limit cut
   * off (replayed as the `continuation` event, so the answer folds into one).
   */
  | { t: "msg"; turn: number; msg: Message; receipt?: string; diff?: FileDiff[]; continuation?: { outputLimit?: number } }
  /** A file's content before a writer changed it; blob null = the file did not exist. */
  | { t: "checkpoint"; turn: number; path: string; blob: string | null }
  /**
   * cost: spend of this step in `currency`, when the model has prices; saved: what the cache saved on it.
   * role: the planner's, the Guardian's or the goal evaluator's model call (absent: the executor's).
   */
  | { t: "usage"; turn: number; usage: Usage; cost?: number; currency?: string; saved?: number; role?: UsageRole }
  | { t: "todo"; items: TodoItem[] }
  | { t: "compaction"; turn: number; headCount: number; keepFrom: number; summary: string }
  | { t: "turn_end"; turn: number; reason: TurnEndReason; error?: string; at: string }
  | { t: "rewind"; turn: number; mode: RewindMode; at: string }
  | { t: "model"; model: string }
  /** A subagent's link to the session (and tool call) that started it (core/agents). */
  | { t: "parent"; id: string; callId?: string; agent: string; depth: number; readOnly: boolean; at: string }
  /** A notice for the user (not the model), e.g. a skipped instruction file; shown as a `warning` event. */
  | { t: "warning"; code: string; message: string }
  /** A title the user set (overrides the first prompt); "" = back to the automatic title. See title.ts. */
  | { t: "title"; title: string; at: string }
  /** Forked from session `from`, just before its turn `turn` (absent: after its last finished turn). See fork.ts. */
  | { t: "fork"; from: string; turn?: number; at: string }
  /** Goal mode: the goal's whole state after a change (the last one wins on replay). */
  | { t: "goal"; change: GoalChange; goal: GoalView; message?: string; at: string }
  /** The planner's plan for an explicit plan request (core/planner); shown as a `plan` event. */
  | { t: "plan"; turn: number; route: PlanRoute; plan: Plan; text: string; at: string }
  /**
   * The user's shell line (`!command`, core/engine/user-shell.ts), run between
   * turns: shown as a bash card; unless refused, its output waits for the next
   * user message (the next `msg` of a user turn takes it). Readers that do not
   * know a record type skip it (replay.ts), so older builds just lose the card.
   */
  | { t: "shell"; turn: number; callId: string; command: string; ok: boolean; output: string; refused?: boolean; at: string }
  /**
   * The model's question (the `ask` tool), on disk before it is shown, and the
   * user's answer once given (a dismissal too). Replayed as the pair of
   * events `question_request` + `question_resolved` once answered, so a
   * reopened session's transcript shows both; one a crash left unanswered is
   * answered "dismissed" by the repair on open (session.ts). Older readers skip
   * both records (replay.ts) and show the `ask` call as before.
   */
  | { t: "question"; turn: number; question: Question; at: string }
  | { t: "question_answer"; turn: number; callId: string; answer: QuestionAnswer; at: string }
  /** The Guardian's review of a tool call (core/guardian), before it ran; shown as a `guardian` event. */
  | ({ t: "guardian"; turn: number; at: string } & GuardianReview);

export type MetaRecord = Extract<SessionRecord, { t: "meta" }>;
