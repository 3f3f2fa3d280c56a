/**
 * Goal start → the planner. Registered once per process with core/goal's
 * goal-start hooks: a session that has a planner (LiveSession.planForGoal)
 * plans the objective before the first goal turn; its plan joins that turn's
 * prompt. Without a planner nothing happens; a planner failure throws, and
 * the goal starts on the executor alone (the hook runner records a warning).
 */
import { registerGoalStartHook } from "../goal/hooks.ts";

type WithPlanner = { planForGoal?(objective: string, signal: AbortSignal): Promise<string | undefined> };

registerGoalStartHook(async ({ objective, session, signal }) => {
  const s = session as unknown as WithPlanner;
  if (typeof s.planForGoal !== "function") return;
  const note = await s.planForGoal(objective, signal);
  return note ? { note } : undefined;
});
