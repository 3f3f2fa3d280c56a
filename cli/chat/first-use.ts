// Before the terminal chat draws: a newcomer without a provider gets the
// setup wizard, and a workspace whose files would loosen the user's settings
// gets a one-time trust question (asked again only when the files change).
import { confirm } from "../confirm.ts";
import { bold, dim, yellow } from "../output.ts";

export async function beforeChat(workspace: string, home: string): Promise<void> {
  if (!process.stdin.isTTY) return;
  const { ensureProviderOnFirstUse } = await import("../setup-prompts.ts");
  await ensureProviderOnFirstUse({ home });
  await askTrustOnce(workspace, home);
}

export async function askTrustOnce(workspace: string, home: string): Promise<void> {
  const { mayLoosen, trustReport, trustWorkspace } = await import("../../core/trust/report.ts");
  const { alreadyDeclined, rememberDeclined } = await import("../../core/trust/asked.ts");
  let report;
  try {
    if (!mayLoosen(workspace)) return; // no reasonix.toml, nothing to ask: one stat before the first frame
    report = trustReport(workspace, home);
  } catch {
    return; // a broken config is reported by the chat's own start
  }
  if (report.trusted || report.loosening.length === 0 || alreadyDeclined(home, report.workspace, report.inputs)) return;
  const err = process.stderr;
  err.write(`${yellow("This workspace's files want to loosen your protections:", err)}\n`);
  for (const l of report.loosening) err.write(`  ${l.key} = ${JSON.stringify(l.value)}  ${dim(`${l.file}:${l.line}`, err)}\n`);
  err.write(dim("Until you trust their exact content these settings are ignored; a later change asks again.\n", err));
  if (await confirm(`${bold("Trust these files?", err)} [y/N] `)) {
    trustWorkspace(report.workspace, home);
    err.write("trusted.\n");
  } else {
    rememberDeclined(home, report.workspace, report.inputs);
    err.write(dim("kept untrusted; review later with /trust or `reasonix trust`.\n", err));
  }
}
