/**
 * One line per Guardian review, worded once for every front end (run, the
 * terminal chat, the web UI, ACP): "reviewed by Guardian: allowed (low risk,
 * authorization high): creates the file the user asked for".
 */
import type { GuardianReview } from "../engine/types.ts";

const OUTCOME: Record<GuardianReview["outcome"], string> = { allow: "allowed", deny: "denied", ask: "asks you" };

export function guardianLine(r: Pick<GuardianReview, "outcome" | "risk" | "authorization" | "reason" | "unavailable" | "summary">): string {
  if (r.unavailable) return `Guardian unavailable for ${r.summary} (${r.outcome === "deny" ? "denied" : "asks you"}): ${r.reason}`;
  return `reviewed by Guardian: ${OUTCOME[r.outcome]} ${r.summary} (${r.risk} risk, authorization ${r.authorization}): ${r.reason}`;
}

/** allow is routine; deny and ask deserve the user's eye. */
export const guardianTone = (r: Pick<GuardianReview, "outcome">): "info" | "warn" => (r.outcome === "allow" ? "info" : "warn");
