/**
 * The Guardian's verdict and the fixed rule that turns it into an outcome.
 * The model only judges (risk, how clearly the user authorized the action);
 * whether the call runs is decided here, by a table nobody can talk around.
 */

export const RISKS = ["low", "medium", "high", "critical"] as const;
export const AUTHORIZATIONS = ["high", "medium", "low", "unknown"] as const;
export type Risk = (typeof RISKS)[number];
export type Authorization = (typeof AUTHORIZATIONS)[number];

export interface Verdict {
  risk: Risk;
  user_authorization: Authorization;
  reason: string;
}

/**
 * The outcome rule: low and medium run; high runs only when the user
 * authorized it (medium or high); critical never runs.
 */
export function guardianOutcome(risk: Risk, authorization: Authorization): "allow" | "deny" {
  switch (risk) {
    case "low":
    case "medium":
      return "allow";
    case "high":
      return authorization === "high" || authorization === "medium" ? "allow" : "deny";
    case "critical":
      return "deny";
  }
}

/** The authorization the rule uses: an explicit re-approval by the user counts as high. */
export const effectiveAuthorization = (v: Verdict, reapproved: boolean): Authorization => (reapproved ? "high" : v.user_authorization);

/**
 * Read the Guardian's answer: one JSON object, optionally inside a ```json
 * fence. Anything else (prose only, missing or unknown fields) is an error:
 * the caller fails closed.
 */
export function parseVerdict(text: string): { ok: true; verdict: Verdict } | { ok: false; error: string } {
  const t = text.trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(t);
  const body = fenced ? fenced[1]!.trim() : t;
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  if (start < 0 || end < start) return { ok: false, error: `no JSON object in the answer (${preview(t)})` };
  let v: unknown;
  try {
    v = JSON.parse(body.slice(start, end + 1));
  } catch (e) {
    return { ok: false, error: `the answer is not valid JSON: ${(e as Error).message}` };
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return { ok: false, error: "the answer is not a JSON object" };
  const o = v as Record<string, unknown>;
  if (!RISKS.includes(o.risk as Risk)) return { ok: false, error: `"risk" must be one of ${RISKS.join(", ")} (got ${JSON.stringify(o.risk)})` };
  if (!AUTHORIZATIONS.includes(o.user_authorization as Authorization)) {
    return { ok: false, error: `"user_authorization" must be one of ${AUTHORIZATIONS.join(", ")} (got ${JSON.stringify(o.user_authorization)})` };
  }
  if (typeof o.reason !== "string" || !o.reason.trim()) return { ok: false, error: `"reason" must be a non-empty string` };
  return { ok: true, verdict: { risk: o.risk as Risk, user_authorization: o.user_authorization as Authorization, reason: o.reason.trim() } };
}

const preview = (s: string) => (s.length > 80 ? `${JSON.stringify(s.slice(0, 77))}…` : JSON.stringify(s));
