/**
 * An engine approval_request → `session/request_permission`. Options: allow
 * once, allow the suggested rule for this session, always allow — saved in
 * the user's config, or (its own option) in the project's file, each naming
 * the file it writes — and reject. Any failure to get an answer (error,
 * cancelled, unknown option) is a refusal.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { ApprovalDecision, EngineEvent } from "../engine/types.ts";
import type { PersistTargets } from "../protocol/events.ts";
import type { UpdateTranslator } from "./updates.ts";

export const PERMISSION_OPTIONS = (rule: string, to?: PersistTargets): acp.PermissionOption[] => [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_session", name: `Allow ${rule} for the rest of this session`, kind: "allow_always" },
  ...(to
    ? ([
        { optionId: "allow_always", name: `Always allow ${to.user.rule}: saved in ${to.user.path} (your config, every project)`, kind: "allow_always" },
        { optionId: "allow_always_project", name: `Always allow ${to.project.rule} in this project: saved in ${to.project.path}`, kind: "allow_always" },
      ] satisfies acp.PermissionOption[])
    : []),
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

const DECISIONS: Record<string, ApprovalDecision> = { allow_once: "once", allow_session: "session", allow_always: "persist", allow_always_project: "persist_project", reject: "deny" };

export function permissionRequest(sessionId: string, e: Extract<EngineEvent, { type: "approval_request" }>, tr: UpdateTranslator): acp.RequestPermissionRequest {
  const { sessionUpdate: _, ...toolCall } = tr.toolCall(e.callId, e.name, e.input);
  return { sessionId, toolCall: { ...toolCall, title: e.summary }, options: PERMISSION_OPTIONS(e.suggestedRule, e.persistTo) };
}

export async function askPermission(
  request: (p: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>,
  params: acp.RequestPermissionRequest,
  onError: (why: string) => void,
): Promise<ApprovalDecision> {
  try {
    const res = await request(params);
    const o = res?.outcome;
    if (o?.outcome === "selected") {
      const d = DECISIONS[o.optionId];
      if (d) return d;
      onError(`permission answer names unknown option ${JSON.stringify(o.optionId)}; refusing`);
    }
    return "deny";
  } catch (e) {
    onError(`permission request failed (${e instanceof Error ? e.message : String(e)}); refusing the call`);
    return "deny";
  }
}
