/**
 * `/goal …` over ACP (announced in available_commands_update). Start and
 * resume keep the session/prompt request open while the goal drives turns:
 * the editor sees them stream as usual, plus one message line per goal event;
 * session/cancel stops the running turn and pauses the goal. The request ends
 * with end_turn once the goal is complete, blocked or paused (cancelled when
 * the user cancelled it).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { EngineSession } from "../engine/types.ts";
import { errorMessage } from "../errors.ts";
import { runGoalCommand } from "../goal/command.ts";

/** The argument of a `/goal …` prompt; undefined for any other prompt. */
export function goalPromptArg(text: string): string | undefined {
  const m = /^\/goal(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? (m[1] ?? "").trim() : undefined;
}

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
