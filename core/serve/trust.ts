// The browser's view of workspace trust: every project input with what it
// can do, and approving exactly the content the user was shown.
import { reasonixHome } from "../home.ts";
import { ReasonixError } from "../errors.ts";
import { approveShown } from "../trust/approve.ts";
import { trustReport, type TrustReport } from "../trust/report.ts";
import { ApiError } from "./sessions.ts";

export interface TrustApi {
  report(): TrustReport;
  /** Approve when the files still have the digests the user saw; else 409. */
  approve(seen: Record<string, string>): TrustReport;
}

export function trustApi(workspace: string, home = reasonixHome()): TrustApi {
  return {
    report: () => trustReport(workspace, home),
    approve(seen) {
      try {
        return approveShown(workspace, seen, home);
      } catch (e) {
        if (e instanceof ReasonixError && e.code === "trust_changed") {
          throw new ApiError(409, "trust_changed", `the project files changed since they were shown (${e.message.replace(/^not approved: /, "")}); review them again`);
        }
        throw e;
      }
    },
  };
}

/** The `inputs` object of a POST /api/trust body: relative path → sha256. */
export function seenDigests(body: Record<string, unknown>): Record<string, string> {
  const v = body.inputs;
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ApiError(400, "bad_request", '"inputs" must be an object of path → sha256 (from GET /api/trust)');
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string" || !/^[0-9a-f]{64}$/.test(x)) throw new ApiError(400, "bad_request", `inputs["${k}"] must be a sha256 hex digest`);
    out[k] = x;
  }
  return out;
}
