// Goal mode in the browser: `/goal …` typed in the prompt box and the goal
// bar's buttons go to POST /api/sessions/:id/goal; the loop's `goal` events
// (folded into View.goal by transcript.ts) keep every tab up to date.
import { api, sessionPath } from "./api.ts";
import { goalArg, parseGoalCommand, type GoalAction } from "../../../protocol/commands.ts";
import { goalStatusLines } from "../../../goal/format.ts";
import type { GoalView } from "../../../engine/types.ts";

export interface GoalReply {
  goal: GoalView | null;
  running: boolean;
}

/** `/goal …` (also `/reasonix:goal …`) → the action; undefined for any other text. */
export function goalCommand(text: string): GoalAction | undefined {
  const arg = goalArg(text);
  return arg === undefined ? undefined : parseGoalCommand(arg);
}

export const goalRequest = (id: string, a: GoalAction): Promise<GoalReply> => api<GoalReply>("POST", sessionPath(id, "goal"), a);

/** What /goal status prints in the transcript. */
export const goalStatusText = (r: GoalReply): string => goalStatusLines(r.goal ?? undefined, r.running).join("\n");
