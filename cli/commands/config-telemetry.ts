// `reasonix config telemetry [auto|on|off]`: show the effective mode of the
// usage counters and why, or set it (user config) — auto and on count as a
// saved "yes", off as a "no" and drops the pending counters.
import { defineCommand } from "../command.ts";
import { printJson } from "../output.ts";

interface Args { mode?: string; json: boolean }

export default defineCommand<Args>({
  command: "telemetry [mode]",
  describe: "Show or set the opt-in usage counters: auto (interactive terminal chats), on (also run, serve, acp, mcp serve, remote), off",
  builder: (y) =>
    y
      .positional("mode", { type: "string", choices: ["auto", "on", "off"], describe: "The new mode (omit to show the effective one)" })
      .option("json", { type: "boolean", default: false })
      .epilog("What is sent, exactly: reasonix docs show telemetry.md. Always off with CI, DO_NOT_TRACK=1 or REASONIX_TELEMETRY=0."),
  run: async (args) => {
    const { loadConfig } = await import("../../core/config/load.ts");
    const { reasonixHome, homePaths } = await import("../../core/home.ts");
    const { saveChoice } = await import("../../core/telemetry/store.ts");
    const { telemetrySummary, summaryLine } = await import("../../core/telemetry/summary.ts");
    const home = reasonixHome();
    if (args.mode) {
      const { dropInText, editConfigFile, setConfigValue } = await import("../../core/config/edit.ts");
      const file = homePaths(home).config;
      setConfigValue(file, "telemetry.mode", args.mode);
      // The key an older Reasonix used (core/config/parse.ts migrateRenamed) goes with it.
      editConfigFile(file, (text) => dropInText(text, "telemetry.enabled"), () => null);
      // "no" also drops the pending counters.
      saveChoice(home, args.mode === "off" ? "no" : "yes");
      if (args.mode !== "off" && !args.json) {
        const { BOUNDARY_LINES } = await import("../../core/telemetry/boundary.ts");
        process.stderr.write(`${BOUNDARY_LINES.join("\n")}\n`);
      }
    }
    const info = telemetrySummary(home, loadConfig({ cwd: process.cwd() }).values);
    if (args.json) return printJson(info);
    process.stdout.write(`telemetry: ${summaryLine(info)}\nendpoint: ${info.endpoint}\n`);
  },
});
