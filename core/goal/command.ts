/**
 * `/goal …` as every front end understands it: start, status, pause, resume,
 * clear. Start and resume hand back the goal loop's promise; the front end
 * decides whether to wait for it (run) or let it drive turns in the
 * background (chat, web, ACP). The loop's own `goal` events tell the story,
 * so those two print nothing here.
 */
import type { GoalControl, GoalView } from "../engine/types.ts";
import { ReasonixError } from "../errors.ts";
import { GOAL_USAGE, goalStatusLines } from "./format.ts";
import { builtinCommandEntry, parseGoalCommand } from "../protocol/commands.ts";
export { parseGoalCommand, type GoalAction } from "../protocol/commands.ts";

/** How `/goal` is listed in every front end's command menu (terminal chat, web UI, ACP). */
const goalEntry = builtinCommandEntry("goal");
export const GOAL_COMMAND = { name: goalEntry.name, description: goalEntry.description, argumentHint: goalEntry.args! };


export interface GoalCommandResult {
  lines: string[];
  /** The goal loop, for start and resume. */
  loop?: Promise<GoalView>;
}

export function runGoalCommand(goal: GoalControl | undefined, arg: string): GoalCommandResult {
  if (!goal) throw new ReasonixError("goal_unsupported", "goal mode is not available in this session");
  const a = parseGoalCommand(arg);
  switch (a.action) {
    case "status":
      return { lines: [...goalStatusLines(goal.status(), goal.running), ...(goal.status() ? [] : [`usage: ${GOAL_USAGE}`])] };
    case "pause": {
      const v = goal.pause();
      return { lines: v.status === "active" ? ["the goal pauses when the running turn ends (Esc stops the turn now)"] : [] };
    }
    case "clear":
      if (!goal.clear()) return { lines: ["no goal in this session"] };
      return { lines: [] };
    case "resume":
      return { lines: [], loop: goal.resume() };
    case "start":
      return { lines: [], loop: goal.start(a.objective) };
  }
}
