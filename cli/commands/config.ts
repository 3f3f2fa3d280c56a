import { defineCommand, defineGroup } from "../command.ts";
import { dim, printJson, warn } from "../output.ts";
import telemetry from "./config-telemetry.ts";

const load = async () => {
  const { loadConfig } = await import("../../core/config/load.ts");
  const cfg = loadConfig();
  for (const w of cfg.warnings) warn(w);
  return cfg;
};

const fmt = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

const path = defineCommand<{ json: boolean }>({
  command: "path",
  describe: "Print the user and project config file paths",
  builder: (y) => y.option("json", { type: "boolean", default: false }),
  run: async (args) => {
    const { homePaths } = await import("../../core/home.ts");
    const { projectConfigPath } = await import("../../core/config/load.ts");
    const paths = { user: homePaths().config, project: projectConfigPath(process.cwd()) };
    if (args.json) return printJson(paths);
    process.stdout.write(`${paths.user}\n`);
  },
});

const get = defineCommand<{ key: string; json: boolean }>({
  command: "get <key>",
  describe: "Print the effective value of a dotted key (e.g. sandbox.network)",
  builder: (y) => y.positional("key", { type: "string", demandOption: true }).option("json", { type: "boolean", default: false }),
  run: async (args) => {
    const { getDotted } = await import("../../core/config/load.ts");
    const cfg = await load();
    const v = getDotted(cfg.values, args.key);
    if (v === undefined) {
      process.stderr.write(`${args.key} is not set\n`);
      return 1;
    }
    process.stdout.write(args.json ? `${JSON.stringify(v)}\n` : `${fmt(v)}\n`);
  },
});

const set = defineCommand<{ key: string; value: string }>({
  command: "set <key> <value>",
  describe: "Set a key in the user config (comments and other tables are kept)",
  builder: (y) => y.positional("key", { type: "string", demandOption: true }).positional("value", { type: "string", demandOption: true }),
  run: async (args) => {
    const { setConfigValue } = await import("../../core/config/edit.ts");
    const { homePaths } = await import("../../core/home.ts");
    const file = homePaths().config;
    const v = setConfigValue(file, args.key, String(args.value));
    process.stderr.write(`${dim(`${file}:`, process.stderr)} ${args.key} = ${JSON.stringify(v)}\n`);
  },
});

const list = defineCommand<{ "show-source": boolean; json: boolean }>({
  command: "list",
  describe: "List effective settings",
  builder: (y) =>
    y
      .option("show-source", { type: "boolean", default: false, describe: "Show which file (or default/flag) supplies each value" })
      .option("json", { type: "boolean", default: false }),
  run: async (args) => {
    const { leafKeys, getDotted } = await import("../../core/config/load.ts");
    const cfg = await load();
    const keys = leafKeys(cfg.values).sort();
    const ignored = args["show-source"] ? cfg.trust.ignored : [];
    if (args.json) {
      return printJson([
        ...keys.map((k) => ({ key: k, value: getDotted(cfg.values, k), source: cfg.sources.get(k) ?? "default" })),
        ...ignored.map((i) => ({ key: i.key, value: i.value, source: `${i.file}:${i.line}`, ignored: i.reason })),
      ]);
    }
    for (const k of keys) {
      const src = args["show-source"] ? `  ${dim(`# ${cfg.sources.get(k) ?? "default"}`)}` : "";
      process.stdout.write(`${k} = ${JSON.stringify(getDotted(cfg.values, k))}${src}\n`);
    }
    // providers has no default, so an empty list would just be silent: say what to do.
    if (!Array.isArray(cfg.values.providers) || cfg.values.providers.length === 0) {
      const { homePaths } = await import("../../core/home.ts");
      warn(`no model provider is configured (no [[providers]] in ${homePaths(cfg.home).config}): run \`reasonix setup\``);
    }
    // What the project file set but may not: shown so nobody mistakes it for in force.
    for (const i of ignored) process.stdout.write(dim(`# ignored: ${i.file}:${i.line}: ${i.key} = ${JSON.stringify(i.value)} (${i.reason})\n`));
  },
});

export default defineGroup("config", "Show and edit configuration", [path, get, set, list, telemetry]);
