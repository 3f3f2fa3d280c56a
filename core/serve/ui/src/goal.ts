// Goal mode in the browser: `/goal …` typed in the prompt box and the goal
// bar's buttons go to POST /api/sessions/:id/goal; the loop's `goal` events
// (folded into View.goal by transcript.ts) keep every tab up to date.
import { api, sessionPath } from "./api.ts";
import { parseGoalCommand, type GoalAction } from "../../../goal/command.ts";
import { goalStatusLines } from "../../../goal/format.ts";
import type { GoalView } from "../../../engine/types.ts";

export interface GoalReply {
  goal: GoalView | null;
  running: boolean;
}

/** `/goal …` (also `/reasonix:goal …`) → the action; undefined for any other text. */
export function goalCommand(text: string): GoalAction | undefined {
  const m = /^\/(?:reasonix:)?goal(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? parseGoalCommand(m[1] ?? "") : undefined;
}

export const goalRequest = (id: string, a: GoalAction): Promise<GoalReply> => api<GoalReply>("POST", sessionPath(id, "goal"), a);

/** What /goal status prints in the transcript. */
export const goalStatusText = (r: GoalReply): string => goalStatusLines(r.goal ?? undefined, r.running).join("\n");
