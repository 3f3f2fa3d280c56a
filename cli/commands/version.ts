import { defineCommand } from "../command.ts";
import { printJson } from "../output.ts";

export default defineCommand<{ json: boolean }>({
  command: "version",
  describe: "Show version, commit, build time and embedded asset digests",
  builder: (y) => y.option("json", { type: "boolean", default: false, describe: "Print as JSON" }),
  run: async (args) => {
    const { buildInfo, platformId } = await import("../../core/version.ts");
    const { docsDigest } = await import("../../core/docs/index.ts");
    const info = { ...buildInfo(), platform: platformId(), docsDigest: docsDigest() };
    if (args.json) printJson(info);
    else process.stdout.write(`reasonix ${info.version} (${info.commit}${info.buildTime ? `, ${info.buildTime}` : ""}) ${info.platform}\n`);
  },
});
