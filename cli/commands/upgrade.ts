import { defineCommand } from "../command.ts";
import { printJson } from "../output.ts";

export default defineCommand<{ check: boolean; version?: string; force: boolean; json: boolean }>({
  command: "upgrade",
  describe: "Replace this binary with the latest (or a pinned) release, verified against SHA256SUMS",
  builder: (y) =>
    y
      .option("check", { type: "boolean", default: false, describe: "Only report whether a newer release exists" })
      .option("version", { type: "string", describe: "Install this version instead of the latest" })
      .option("force", { type: "boolean", default: false, describe: "Reinstall even when already on that version" })
      .option("json", { type: "boolean", default: false, describe: "Print the result as JSON" }),
  run: async (args) => {
    const { upgrade } = await import("../../core/release/upgrade.ts");
    const result = await upgrade({ check: args.check, version: args.version, force: args.force });
    if (args.json) printJson(result);
    else process.stdout.write(`${result.message}\n`);
  },
});
