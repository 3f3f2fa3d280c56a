// Before the terminal chat draws: a newcomer without a provider gets the
// setup wizard, and a workspace whose files would loosen the user's settings
// gets a one-time trust question (asked again only when the files change).
import { confirm } from "../confirm.ts";
import { errorMessage } from "../../core/errors.ts";
import { bold, dim, yellow } from "../output.ts";

export async function beforeChat(workspace: string, home: string): Promise<void> {
  if (!process.stdin.isTTY) return;
  const { ensureProviderOnFirstUse } = await import("../setup-prompts.ts");
  await ensureProviderOnFirstUse({ home });
  await askTrustOnce(workspace, home);
}

export async function askTrustOnce(workspace: string, home: string): Promise<void> {
  const { mayLoosen, trustReport } = await import("../../core/trust/report.ts");
  const { alreadyDeclined, rememberDeclined } = await import("../../core/trust/asked.ts");
  let report;
  try {
    if (!mayLoosen(workspace)) return; // no reasonix.toml, nothing to ask: one stat before the first frame
    report = trustReport(workspace, home);
  } catch {
    return; // a broken config is reported by the chat's own start
  }
  if (report.trusted || report.loosening.length === 0 || alreadyDeclined(home, report.workspace, report.inputs)) return;
  const { approveShown, shownDigests, trustLines } = await import("../../core/trust/approve.ts");
  const err = process.stderr;
  err.write(`${yellow("This workspace's files want to loosen your protections.", err)} Trusting approves every file below:\n`);
  const paint = (part: string, t: string) => (part === "file" ? bold(t, err) : part === "status" || part === "can" ? dim(t, err) : part === "problem" ? yellow(t, err) : t);
  for (const l of trustLines(report, paint)) err.write(`${l}\n`);
  err.write(dim("Until you trust their exact content they are ignored; a later change asks again.\n", err));
  if (await confirm(`${bold("Trust these files?", err)} [y/N] `)) {
    try {
      approveShown(report.workspace, shownDigests(report), home);
      err.write("trusted.\n");
    } catch (e) {
      // Changed while the question was open: what is on disk now was never shown.
      err.write(`${yellow(errorMessage(e), err)}\n${dim("kept untrusted; review again with `reasonix trust`.\n", err)}`);
    }
  } else {
    rememberDeclined(home, report.workspace, report.inputs);
    err.write(dim("kept untrusted; review later with /trust or `reasonix trust`.\n", err));
  }
}
