// The browser's view of workspace trust: what the project files would loosen,
// and approving exactly the content the user was shown.
import { homePaths, reasonixHome } from "../home.ts";
import { realWorkspace } from "../trust/index.ts";
import { listProjectInputs } from "../trust/inputs.ts";
import { trustReport, type TrustReport } from "../trust/report.ts";
import { recordTrust } from "../trust/store.ts";
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
      const real = realWorkspace(workspace);
      const now = listProjectInputs(real);
      const same = now.length === Object.keys(seen).length && now.every((i) => seen[i.rel] === i.sha256);
      if (!same) {
        throw new ApiError(409, "trust_changed", "the project files changed since they were shown; review them again");
      }
      recordTrust(homePaths(home).config, real, now);
      return trustReport(real, home);
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
