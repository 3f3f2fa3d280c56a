// `reasonix report`: review, send and delete the crash reports kept under
// $REASONIX_HOME/crash-reports (docs/crash-reports.md). Nothing is sent
// unless the user asks: `report send`, or `y` at the prompt of a bare
// `report` on a terminal.
import { defineCommand } from "../command.ts";
import { bold, dim, green, printJson } from "../output.ts";

const ACTIONS = ["preview", "list", "show", "send", "delete"] as const;
interface ReportArgs { action: string; id?: string; json: boolean }

async function endpoint(): Promise<string> {
  const { readConfigFile, getDotted } = await import("../../core/config/load.ts");
  const { homePaths } = await import("../../core/home.ts");
  const { DEFAULT_CRASH_ENDPOINT } = await import("../../core/crash/endpoint.ts");
  // The user's own config only: a repository must not choose where reports go.
  const file = readConfigFile(homePaths().config, "user", []);
  const value = file ? getDotted(file.data, "report.endpoint") : undefined;
  return typeof value === "string" && value.trim() !== "" ? value.trim() : DEFAULT_CRASH_ENDPOINT;
}

export default defineCommand<ReportArgs>({
  command: "report [action] [id]",
  describe: "Review, send or delete crash reports (nothing is sent unless you ask)",
  builder: (y) =>
    y
      .positional("action", { type: "string", default: "preview", describe: "preview (default: the newest; asks before sending on a terminal), list, show, send or delete" })
      .positional("id", { type: "string", describe: "Report id (default: the newest)" })
      .option("json", { type: "boolean", default: false, describe: "list: print as JSON" })
      .example("reasonix report", "preview the newest report; on a terminal, asks whether to send it")
      .example("reasonix report send", "send the newest report, then delete it here")
      .epilog("Exit codes: 0 done (also: no reports), 1 not found or sending failed (the report is kept), 2 usage error.") as never,
  run: async (args) => {
    if (!(ACTIONS as readonly string[]).includes(args.action)) {
      const { UsageError } = await import("../../core/errors.ts");
      const { closest } = await import("../suggest.ts");
      const near = closest(args.action, [...ACTIONS]);
      throw new UsageError(`unknown report action "${args.action}"`, `${near ? `did you mean "reasonix report ${near}"? ` : ""}(one of: ${ACTIONS.join(", ")})`);
    }
    const store = await import("../../core/crash/store.ts");
    const { payloadFor, sendReport, checkEndpoint } = await import("../../core/crash/send.ts");
    if (args.action === "list") {
      const reports = store.listIds().reverse().map((id) => {
        const r = store.readReport(id)!;
        return { id, createdAt: r.createdAt, frontEnd: r.frontEnd, errorClass: r.errorClass, version: r.version, path: store.reportPath(id) };
      });
      if (args.json) return printJson(reports);
      if (reports.length === 0) return void process.stderr.write("no crash reports\n");
      for (const r of reports) process.stdout.write(`${bold(r.id)}  ${dim(r.createdAt.replace("T", " ").slice(0, 19))}  ${r.frontEnd}  ${r.errorClass}  ${dim(`v${r.version}`)}\n`);
      return;
    }
    if (args.action === "delete") {
      const id = args.id ?? store.listIds().at(-1);
      if (!id) return void process.stderr.write("no crash reports\n");
      store.deleteReport(id);
      process.stdout.write(`deleted crash report ${id}\n`);
      return;
    }
    if (args.action === "send") {
      const r = await sendReport(args.id, await endpoint());
      process.stdout.write(`${green("sent")} crash report ${r.id} to ${r.endpoint}; deleted it here\n`);
      return;
    }
    const report = store.readReport(args.id);
    if (!report) return void process.stderr.write("no crash reports\n");
    // What is shown is exactly what would be sent: scrubbed once more.
    const body = `${JSON.stringify(payloadFor(report), null, 2)}\n`;
    if (args.action === "show") return void process.stdout.write(body);
    const to = checkEndpoint(await endpoint()).href;
    process.stdout.write(`${bold(`crash report ${report.id}`)} ${dim(`(${store.reportPath(report.id)})`)}\n${body}`);
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      process.stdout.write(`${dim(`not sent; to send it to ${to}: reasonix report send ${report.id}`)}\n`);
      return;
    }
    const { confirm } = await import("../confirm.ts");
    if (!(await confirm(`Send this report to ${to}? [y/N] `))) {
      process.stdout.write(`not sent; it stays in ${store.crashDir()} (reasonix report delete ${report.id} removes it)\n`);
      return;
    }
    const r = await sendReport(report.id, to);
    process.stdout.write(`${green("sent")} crash report ${r.id}; deleted it here\n`);
  },
});
