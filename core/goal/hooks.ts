/**
 * Goal-start hooks: code that runs once when a goal starts, before its first
 * turn — the two-model planner (core/planner) registers here to plan the
 * objective first.
 *
 *   registerGoalStartHook(async ({ objective, session, signal }) => {
 *     const plan = await makePlan(objective, signal);
 *     return { note: `Plan:\n${plan}` }; // joins the first goal turn's prompt
 *   });
 *
 * A hook may return a `note` (appended to the first goal turn's prompt, so the
 * system prompt and tools stay untouched) or nothing. A hook that throws does
 * not stop the goal: the failure is recorded as a warning and the goal starts
 * without it (the planner's "fall back to the executor"). The signal aborts
 * when the goal is cleared.
 */
import type { EngineSession } from "../engine/types.ts";

export interface GoalStartContext {
  objective: string;
  session: EngineSession;
  signal: AbortSignal;
}

export type GoalStartHook = (ctx: GoalStartContext) => Promise<{ note?: string } | void>;

const hooks: GoalStartHook[] = [];

/** Register a hook for every goal started in this process; returns an unregister function. */
export function registerGoalStartHook(hook: GoalStartHook): () => void {
  hooks.push(hook);
  return () => {
    const i = hooks.indexOf(hook);
    if (i >= 0) hooks.splice(i, 1);
  };
}

/** Run the hooks in order; notes are joined, failures are reported through `warn`. */
export async function runGoalStartHooks(ctx: GoalStartContext, warn: (message: string) => void): Promise<string | undefined> {
  const notes: string[] = [];
  for (const h of [...hooks]) {
    try {
      const r = await h(ctx);
      if (r?.note?.trim()) notes.push(r.note.trim());
    } catch (e) {
      warn(`a goal-start hook failed; the goal starts without it: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return notes.length ? notes.join("\n\n") : undefined;
}
