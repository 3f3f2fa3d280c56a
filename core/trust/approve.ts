// Approving what the user was shown, and nothing else: every front end (the
// CLI's `reasonix trust`, the chat's question, the web UI) shows a
// TrustReport, then approves the digests in it. The approval is refused when
// the files on disk are no longer exactly those, and only the shown digests
// are recorded, so content that changes after the check is not covered.
import { homePaths } from "../home.ts";
import { ReasonixError } from "../errors.ts";
import { visible } from "./describe.ts";
import { realWorkspace } from "./index.ts";
import { listProjectInputs } from "./inputs.ts";
import { trustReport, type TrustReport } from "./report.ts";
import { recordTrust } from "./store.ts";

/** Relative path → sha256 of every input a report showed. */
export const shownDigests = (r: Pick<TrustReport, "inputs">): Record<string, string> => Object.fromEntries(r.inputs.map((i) => [i.rel, i.sha256]));

/** Why the files on disk are not the ones shown (empty when they are). */
export function differences(workspace: string, shown: Record<string, string>): string[] {
  const now = listProjectInputs(workspace);
  const out: string[] = [];
  for (const i of now) {
    if (!(i.rel in shown)) out.push(`${i.rel} was not shown`);
    else if (shown[i.rel] !== i.sha256) out.push(`${i.rel} changed since it was shown`);
  }
  for (const rel of Object.keys(shown)) if (!now.some((i) => i.rel === rel)) out.push(`${rel} was shown but is gone`);
  return out;
}

/** Record exactly `shown` as approved, or throw (code "trust_changed") naming what differs. */
export function approveShown(dir: string, shown: Record<string, string>, home = homePaths().home): TrustReport {
  const workspace = realWorkspace(dir);
  const diff = differences(workspace, shown);
  if (diff.length > 0) {
    throw new ReasonixError("trust_changed", `not approved: ${diff.join("; ")}`, { hint: "review the files again and approve what is shown then" });
  }
  recordTrust(homePaths(home).config, workspace, Object.entries(shown).map(([rel, sha256]) => ({ rel, sha256, bytes: 0 })));
  return trustReport(workspace, home);
}

const STATUS = { approved: "approved", changed: "changed since approval", new: "new" } as const;

/**
 * The report as terminal lines, for `reasonix trust` and the chat: each
 * file with its status and digest, what it can do, then its items. `paint`
 * styles a part ("file", "status", "can", "item", "problem") for a terminal.
 */
export function trustLines(r: TrustReport, paint: (part: "file" | "status" | "can" | "item" | "problem", text: string) => string = (_p, t) => t): string[] {
  const out: string[] = [];
  for (const i of r.inputs) {
    out.push(`  ${paint("file", visible(i.rel))}  ${paint("status", STATUS[i.status])}  ${i.sha256.slice(0, 12)}`);
    out.push(`    ${paint("can", i.can)}`);
    for (const item of i.items) out.push(`      ${paint("item", item)}`);
    if (i.problem) out.push(`      ${paint("problem", i.problem)}`);
  }
  return out;
}
