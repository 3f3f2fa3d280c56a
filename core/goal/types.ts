/** Goal mode's internal contracts: what the driver needs from a session, and what the goal tools see. */
import type { EngineSession, GoalChange, GoalView, TodoItem, Usage } from "../engine/types.ts";
import type { Provider } from "../providers/types.ts";

/** The model's end-of-turn disposition (the update_goal tool). */
export interface GoalReport {
  status: "continue" | "complete" | "blocked";
  evidence: string;
  /** Checks the model could not run (completion.unverified). */
  unverified: string[];
}

/** What the goal driver needs from the live session it drives. */
export interface GoalHost {
  session: EngineSession;
  /** The session's provider, for the one bounded evaluator call. */
  provider: Provider;
  config: Record<string, unknown>;
  /** The goal as the session log left it (replayed). */
  saved?: GoalView;
  /** Append a goal record to the session log and emit its `goal` event. */
  record(change: GoalChange, goal: GoalView, message?: string): void;
  /** A notice for the user (recorded, never sent to the model). */
  warn(code: string, message: string): void;
  /**
   * A goal-driver note for the model (the stall redirect): a user-role message
   * at the next model step, sent as worded (not labelled as the user's).
   */
  note(content: string): void;
  /** The evaluator's model call spent this: a usage record with role goal_evaluator (session total and cost). */
  spent(usage: Usage): void;
}

/** What update_goal and complete_step reach through ToolContext.goal. */
export interface GoalToolPort {
  /** Record the model's disposition for the running goal turn; an error text when it cannot be accepted. */
  report(r: GoalReport): { ok: true; text: string } | { ok: false; error: string };
  /** The session's current todo list. */
  todos(): TodoItem[];
  /** A todo step was signed off (recorded in the goal when one is active). */
  signedOff(step: string, evidence: string): void;
}
