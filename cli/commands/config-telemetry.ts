// `reasonix config telemetry [auto|on|off]`: show the effective mode of the
// usage counters and why, or set it (user config) — auto and on count as a
// saved "yes", off as a "no" and drops the pending counters.
import { defineCommand } from "../command.ts";
import { printJson } from "../output.ts";

interface Args { mode?: string; json: boolean }

export default defineCommand<Args>({
  command: "telemetry [mode]",
  describe: "Show or set the opt-in usage counters: auto (interactive sessions), on (also headless run), off",
  builder: (y) =>
    y
      .positional("mode", { type: "string", choices: ["auto", "on", "off"], describe: "The new mode (omit to show the effective one)" })
      .option("json", { type: "boolean", default: false })
      .epilog("What is sent, exactly: docs/telemetry.md. Always off with CI, DO_NOT_TRACK=1 or REASONIX_TELEMETRY=0."),
  run: async (args) => {
    const { loadConfig } = await import("../../core/config/load.ts");
    const { reasonixHome, homePaths } = await import("../../core/home.ts");
    const { decide, telemetryConfig } = await import("../../core/telemetry/session.ts");
    const { readState, saveChoice, clearQueue } = await import("../../core/telemetry/store.ts");
    const { pendingPayloads } = await import("../../core/telemetry/send.ts");
    const { DEFAULT_TELEMETRY_ENDPOINT } = await import("../../core/telemetry/endpoint.ts");
    const home = reasonixHome();
    if (args.mode) {
      const { setConfigValue } = await import("../../core/config/edit.ts");
      setConfigValue(homePaths(home).config, "telemetry.mode", args.mode);
      saveChoice(home, args.mode === "off" ? "no" : "yes");
      if (args.mode === "off") clearQueue(home);
      else if (!args.json) {
        const { BOUNDARY_LINES } = await import("../../core/telemetry/boundary.ts");
        process.stderr.write(`${BOUNDARY_LINES.join("\n")}\n`);
      }
    }
    const cfg = telemetryConfig(loadConfig({ cwd: process.cwd() }).values);
    const state = readState(home);
    const chat = decide(home, cfg, "chat", true);
    const run = decide(home, cfg, "run", false);
    const info = {
      mode: cfg.mode ?? "auto",
      choice: state?.choice ?? null,
      chat: { collect: chat.collect, reason: chat.reason },
      run: { collect: run.collect, reason: run.reason },
      pending: pendingPayloads(home).length,
      endpoint: cfg.endpoint ?? DEFAULT_TELEMETRY_ENDPOINT,
    };
    if (args.json) return printJson(info);
    const line = (d: { collect: boolean; reason: string }) => (d.collect ? "sent" : `not sent (${d.reason})`);
    process.stdout.write(
      `telemetry: ${info.mode}${state ? ` · you said ${state.choice}` : " · not asked yet"}\n` +
        `  interactive chat: ${line(chat)}\n  headless run: ${line(run)}\n` +
        `  pending day records: ${info.pending} · endpoint ${info.endpoint}\n`,
    );
  },
});
