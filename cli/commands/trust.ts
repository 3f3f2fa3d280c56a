import { UsageError } from "../../core/errors.ts";
import { defineCommand } from "../command.ts";
import { confirm } from "../confirm.ts";
import { bold, dim, green, printJson, yellow } from "../output.ts";
import { plural } from "../../core/plural.ts";

interface TrustArgs {
  dir?: string;
  list: boolean;
  revoke?: string;
  yes: boolean;
  json: boolean;
}

export default defineCommand<TrustArgs>({
  command: "trust [dir]",
  describe: "Review and approve the exact project files (reasonix.toml, .mcp.json, .reasonix/) a workspace ships",
  builder: (y) =>
    y
      .positional("dir", { type: "string", describe: "Workspace directory (default: current directory)" })
      .option("list", { type: "boolean", default: false, describe: "List trusted workspaces and whether their files changed since" })
      .option("revoke", { type: "string", describe: "Forget the approval of this workspace" })
      .option("yes", { alias: "y", type: "boolean", default: false, describe: "Approve without asking (required without a terminal)" })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON" })
      .example("reasonix trust", "show what this repository's files would change, then ask")
      .example("reasonix trust --list", "")
      .example("reasonix trust --revoke ~/src/app", "")
      .epilog(
        "Until approved, a workspace's files may only tighten your settings. Approval covers the exact content (SHA-256) " +
          "of each file: any later change, by a git pull or by the agent, needs a new approval. Providers and keys " +
          "always come from your own config. `reasonix run --trust-project` approves the current content for one run.",
      ) as any,
  run: async (args) => {
    const { trustReport, revokeWorkspace, listTrusted } = await import("../../core/trust/report.ts");
    const { resolve } = await import("node:path");
    const { existsSync, statSync } = await import("node:fs");
    if ([args.list, args.revoke !== undefined, args.dir !== undefined].filter(Boolean).length > 1)
      throw new UsageError("use one of: DIR, --list, --revoke DIR");

    if (args.list) {
      const entries = listTrusted();
      if (args.json) return printJson(entries);
      if (entries.length === 0) process.stderr.write(dim("no trusted workspaces\n", process.stderr));
      for (const e of entries) {
        const mark = e.status === "current" ? green("current") : yellow(e.status);
        process.stdout.write(`${e.workspace}  ${mark}${e.trustedAt ? dim(`  approved ${e.trustedAt}`) : ""}\n`);
      }
      return;
    }
    if (args.revoke !== undefined) {
      const removed = revokeWorkspace(resolve(args.revoke));
      if (args.json) return printJson({ workspace: resolve(args.revoke), revoked: removed });
      if (!removed) {
        process.stderr.write(`${resolve(args.revoke)} was not trusted\n`);
        return 1;
      }
      process.stderr.write(`revoked: ${resolve(args.revoke)} is untrusted again\n`);
      return;
    }

    const dir = resolve(args.dir ?? process.cwd());
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${dir} is not a directory`);
    const report = trustReport(dir);
    const { approveShown, shownDigests, trustLines } = await import("../../core/trust/approve.ts");
    const out = process.stdout;
    if (!args.json) {
      out.write(`${bold("workspace")} ${report.workspace}\n`);
      if (report.inputs.length === 0) out.write(dim("ships no project files (reasonix.toml, .mcp.json, .reasonix/)\n"));
      else out.write(`${bold("approving covers every file below, with what it can then do:")}\n`);
      const paint = (part: string, t: string) =>
        part === "file" ? bold(t) : part === "status" ? (t === "approved" ? green(t) : yellow(t)) : part === "item" ? t : part === "problem" ? yellow(t) : dim(t);
      for (const l of trustLines(report, paint)) out.write(`${l}\n`);
      for (const l of report.neverHonoured) out.write(dim(`  ${l.file}:${l.line}: ${l.key} stays ignored: ${l.reason}\n`));
    }
    if (report.trusted) {
      if (args.json) return printJson({ ...report, approved: true });
      out.write(green("already trusted: every file is as approved\n"));
      return;
    }
    let approve = args.yes;
    if (!approve) {
      if (!process.stdin.isTTY) {
        if (args.json) printJson({ ...report, approved: false });
        process.stderr.write("not approved: no terminal to ask on; rerun with --yes to approve this exact content\n");
        return 1;
      }
      approve = await confirm(`Trust ${report.inputs.length === 1 ? "this file exactly as it is" : `these ${plural(report.inputs.length, "file")} exactly as they are`} now? [y/N] `);
    }
    if (!approve) {
      process.stderr.write("not approved; the workspace stays untrusted\n");
      return 1;
    }
    // Exactly what was shown (or, with --yes, what was read just now): a file changed since is refused.
    const after = approveShown(dir, shownDigests(report));
    if (args.json) return printJson({ ...after, approved: true });
    process.stderr.write(green(`trusted ${after.workspace} (${plural(after.inputs.length, "file")}); a later change to any of them needs a new approval\n`, process.stderr));
  },
});
