// The browser's view of workspace trust: every project input with what it
// can do, and approving exactly the content the user was shown.
import { reasonixHome } from "../home.ts";
import { ReasonixError } from "../errors.ts";
import { approveShown } from "../trust/approve.ts";
import { trustReport, type TrustReport } from "../trust/report.ts";
import { ApiError } from "./api-error.ts";

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
