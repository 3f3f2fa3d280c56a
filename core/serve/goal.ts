/**
 * Goal mode over HTTP: GET /api/sessions/:id/goal (the state) and POST
 * …/goal {action: start|pause|resume|clear|status, objective?}. Start and
 * resume run the goal loop in the background; every client follows it
 * through the session's `goal` events (and turn events) on the event stream.
 */
import type { EngineSession, GoalView } from "../engine/types.ts";
import { errorMessage, ReasonixError } from "../errors.ts";
import { ApiError } from "./api-error.ts";

export interface GoalReply {
  goal: GoalView | null;
  running: boolean;
}

export interface GoalHooks {
  /** The loop started or stopped driving turns. */
  busy(running: boolean): void;
  /** The loop failed outside a turn (shown to every client as an error event). */
  failed(message: string): void;
}

const ACTIONS = ["status", "start", "pause", "resume", "clear"] as const;

export function goalAction(session: EngineSession, action: string, objective: string | undefined, hooks: GoalHooks): GoalReply {
  const g = session.goal;
  if (!ACTIONS.includes(action as (typeof ACTIONS)[number])) throw new ApiError(400, "bad_action", `"action" must be one of ${ACTIONS.join(", ")}`);
  const track = (loop: Promise<GoalView>) => {
    hooks.busy(true);
    loop.catch((e) => hooks.failed(errorMessage(e))).finally(() => hooks.busy(false));
  };
  try {
    if (action === "start") {
      if (!objective?.trim()) throw new ApiError(400, "bad_request", '"objective" is required to start a goal');
      track(g.start(objective));
    } else if (action === "resume") track(g.resume());
    else if (action === "pause") g.pause();
    else if (action === "clear") g.clear();
  } catch (e) {
    if (e instanceof ReasonixError) throw new ApiError(409, e.code, e.hint ? `${e.message} (${e.hint})` : e.message);
    throw e;
  }
  return { goal: g.status() ?? null, running: g.running };
}
