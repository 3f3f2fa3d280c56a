import { defineCommand } from "../command.ts";
import { bold, dim, green, printJson, red, yellow } from "../output.ts";
import { plural } from "../../core/plural.ts";

export default defineCommand<{ json: boolean; topic?: string; dir?: string; live: boolean }>({
  command: "doctor [topic]",
  describe: "Check this machine and configuration: config files, providers and keys, sandbox, tools (exit 1 when the agent cannot run)",
  builder: (y) =>
    y
      .positional("topic", { type: "string", choices: ["capabilities"], describe: "capabilities: the workspace's slash commands, skills (shadowing, not loaded), hooks and MCP servers" })
      .option("dir", { type: "string", describe: "Workspace for `doctor capabilities` (default: current directory)" })
      .option("live", { type: "boolean", default: false, describe: "`doctor capabilities`: also start each MCP server and list its tools (starts third-party programs)" })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON: every check with status ok|warn|fail" }),
  run: async (args) => {
    if (args.topic === "capabilities") return (await import("./doctor-capabilities.ts")).runCapabilities(args);
    const { diagnose } = await import("../../core/doctor.ts");
    const report = await diagnose();
    if (args.json) {
      printJson(report);
      return report.ok ? 0 : 1;
    }
    const mark = { ok: green("ok  "), warn: yellow("warn"), fail: red("FAIL") } as const;
    process.stdout.write(`${bold(`reasonix ${report.version.version}`)} ${dim(report.version.platform)}\n`);
    for (const c of report.checks) {
      process.stdout.write(`${mark[c.status]} ${c.label.padEnd(16)} ${c.status === "ok" ? dim(c.detail) : c.detail}\n`);
      if (c.hint) process.stdout.write(`     ${"".padEnd(16)} ${dim(`→ ${c.hint}`)}\n`);
    }
    const failed = report.checks.filter((c) => c.status === "fail").length;
    const warned = report.checks.filter((c) => c.status === "warn").length;
    const verdict = failed ? red(`${plural(failed, "problem")} ${failed === 1 ? "blocks" : "block"} the agent`) : warned ? yellow(`ready, ${plural(warned, "warning")}`) : green("ready");
    process.stdout.write(`${verdict} ${dim(`(checked in ${report.elapsedMs} ms)`)}\n`);
    return failed ? 1 : 0;
  },
});
