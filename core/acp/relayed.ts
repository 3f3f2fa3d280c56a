/**
 * Approvals a subagent relays through its parent reach the editor as
 * session/request_permission for a call it never saw announced (the child's
 * own call, id `<child session>:<call>`); an editor shows it as a new tool
 * call. This closes that card: failed at once when refused, completed when
 * the child that asked has ended.
 */
import type { ApprovalDecision, EngineEvent } from "../engine/types.ts";
import type { Update } from "./updates.ts";

export class RelayedCalls {
  private readonly announced = new Set<string>();
  /** Allowed relayed calls, by the child session they belong to. */
  private readonly open = new Map<string, string>();

  /** Feed every engine event of the session; returns updates to send. */
  observe(e: EngineEvent): Update[] {
    if (e.type === "tool_call") this.announced.add(e.callId);
    if (e.type !== "subagent" || e.phase !== "end" || !e.sessionId) return [];
    const done: Update[] = [];
    for (const [id, child] of this.open) {
      if (child !== e.sessionId) continue;
      this.open.delete(id);
      done.push({ sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" });
    }
    return done;
  }

  /** The editor answered the permission request for `callId`. */
  answered(callId: string, decision: ApprovalDecision): Update[] {
    if (this.announced.has(callId)) return [];
    if (decision === "deny") return [{ sessionUpdate: "tool_call_update", toolCallId: callId, status: "failed" }];
    const child = callId.includes(":") ? callId.slice(0, callId.indexOf(":")) : "";
    if (child) this.open.set(callId, child);
    return [];
  }
}
