/**
 * `/goal …` over ACP (announced in available_commands_update). Start and
 * resume keep the session/prompt request open while the goal drives turns:
 * the editor sees them stream as usual, plus one message line per goal event;
 * session/cancel stops the running turn and pauses the goal. The request ends
 * with end_turn once the goal is complete, blocked or paused (cancelled when
 * the user cancelled it).
 *
 * While that request is open, `/goal pause|status|clear` still reach the
 * goal: through the GOAL_METHOD extension (announced in initialize, like
 * steering), or as a second session/prompt with that text, answered at once.
 * ACP v1 has no notion of a prompt that arrives during another one, and
 * editors do not send one, hence the extension; session/cancel stays the way
 * to stop the running turn now.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { EngineSession, GoalView } from "../engine/types.ts";
import { errorMessage } from "../errors.ts";
import { runGoalCommand } from "../goal/command.ts";
import { goalArg, parseGoalCommand } from "../protocol/commands.ts";

/** Reasonix's ACP extension for goal control while a /goal request is open. */
export const GOAL_METHOD = "_reasonix.io/session/goal";
/** What GOAL_METHOD (and a /goal prompt during a running goal) accepts: the actions that need no open request. */
export const GOAL_CONTROLS = ["pause", "status", "clear"] as const;
export type GoalControlAction = (typeof GOAL_CONTROLS)[number];

const isControl = (a: string): a is GoalControlAction => (GOAL_CONTROLS as readonly string[]).includes(a);

/** GOAL_METHOD's parameters; errors name the field. */
export function goalMethodParams(p: unknown): { sessionId: string; action: GoalControlAction } {
  const o = (p ?? {}) as Record<string, unknown>;
  if (typeof o.sessionId !== "string" || !o.sessionId) throw RequestError.invalidParams({ field: "sessionId" }, "sessionId must be a non-empty string");
  if (typeof o.action !== "string" || !isControl(o.action)) {
    throw RequestError.invalidParams({ field: "action" }, `action must be one of ${GOAL_CONTROLS.join(", ")} (start and resume are session/prompt with /goal …, which streams the goal's turns)`);
  }
  return { sessionId: o.sessionId, action: o.action };
}

/** A `/goal …` prompt text that is a control action (pause, status, clear); undefined otherwise. */
export function goalControlOf(text: string): GoalControlAction | undefined {
  const arg = goalPromptArg(text);
  if (arg === undefined) return undefined;
  const a = parseGoalCommand(arg).action;
  return isControl(a) ? a : undefined;
}

export interface GoalControlResult {
  /** What the chat front ends print for the action. */
  lines: string[];
  goal: GoalView | null;
  /** The goal loop is still driving turns (a pause lands when the running turn ends). */
  running: boolean;
}

/** Pause, status or clear, answered at once; a running /goal request goes on until the goal stops. */
export function goalControl(live: EngineSession, action: GoalControlAction): GoalControlResult {
  let lines: string[];
  try {
    lines = runGoalCommand(live.goal, action).lines;
  } catch (e) {
    throw RequestError.invalidRequest({ sessionId: live.id, action }, `/goal ${action}: ${errorMessage(e)}`);
  }
  const running = live.goal.running;
  // The chat's wording names Esc; an editor stops the running turn with session/cancel.
  if (action === "pause" && running) lines = ["the goal pauses when the running turn ends (cancelling the /goal request stops the turn now)"];
  return { lines, goal: live.goal.status() ?? null, running };
}

/** The argument of a `/goal …` prompt (core/protocol's parser); undefined for any other prompt. */
export const goalPromptArg = goalArg;

export async function runAcpGoal(live: EngineSession, arg: string, say: (text: string) => void): Promise<acp.StopReason> {
  let r;
  try {
    r = runGoalCommand(live.goal, arg);
  } catch (e) {
    say(`/goal: ${errorMessage(e)}`);
    return "end_turn";
  }
  if (r.lines.length) say(r.lines.join("\n"));
  if (!r.loop) return "end_turn";
  try {
    const v = await r.loop;
    return v.status === "paused" && v.pauseCode === "cancelled" ? "cancelled" : "end_turn";
  } catch (e) {
    say(`/goal: ${errorMessage(e)}`);
    return "end_turn";
  }
}
