// `reasonix remote forward add|rm|ls NAME`: port forwards kept in the user
// config and set up by `remote connect` on every (re)connect.
import type { Argv } from "yargs";
import { UsageError } from "../../core/errors.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { bold, printJson, warn } from "../output.ts";

const add = defineCommand<{ name: string; L?: string; R?: string }>({
  command: "add <name>",
  describe: "Add a forward: -L SPEC (local port to a remote address) or -R SPEC (remote port back to a local address)",
  builder: (y) =>
    y
      .positional("name", { type: "string", demandOption: true, describe: "Configured host" })
      .option("L", { type: "string", describe: "Local forward: PORT, PORT:HOST:HOSTPORT or BIND:PORT:HOST:HOSTPORT" })
      .option("R", { type: "string", describe: "Remote forward, same forms (bind on the remote, target here)" })
      .example("$0 remote forward add gpu-box -L 5432", "local 127.0.0.1:5432 -> remote 127.0.0.1:5432")
      .example("$0 remote forward add gpu-box -R 8080:localhost:3000", "remote 127.0.0.1:8080 -> local localhost:3000") as Argv<any>,
  run: async (a) => {
    if ((a.L === undefined) === (a.R === undefined)) throw new UsageError("give exactly one of -L SPEC or -R SPEC");
    const { parseForwardSpec, toConfig, exposureWarning, describeForward } = await import("../../remote/forwards/spec.ts");
    const { addForward } = await import("../../remote/forwards/config.ts");
    const f = parseForwardSpec(a.L !== undefined ? "local" : "remote", String(a.L ?? a.R));
    const w = exposureWarning(f);
    if (w) warn(w);
    addForward(a.name, toConfig(f));
    process.stderr.write(`added ${describeForward(f)} to ${bold(a.name)}; it applies from the next \`remote connect\`\n`);
  },
});

const rm = defineCommand<{ name: string; bind: string }>({
  command: ["rm <name> <bind>", "remove <name> <bind>"],
  describe: "Remove the forward(s) bound to BIND (HOST:PORT, or PORT for 127.0.0.1:PORT)",
  builder: (y) =>
    y.positional("name", { type: "string", demandOption: true }).positional("bind", { type: "string", demandOption: true, describe: "Bind address of the forward" }) as Argv<any>,
  run: async (a) => {
    const { removeForward } = await import("../../remote/forwards/config.ts");
    const { fromConfig, describeForward } = await import("../../remote/forwards/spec.ts");
    for (const f of removeForward(a.name, String(a.bind))) process.stderr.write(`removed ${describeForward(fromConfig(f))} from ${bold(a.name)}\n`);
  },
});

const ls = defineCommand<{ name: string; json: boolean }>({
  command: ["ls <name>", "list <name>"],
  describe: "List a host's forwards",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }).option("json", { type: "boolean", default: false, describe: "Print JSON" }) as Argv<any>,
  run: async (a) => {
    const { listForwards } = await import("../../remote/forwards/config.ts");
    const { fromConfig, describeForward } = await import("../../remote/forwards/spec.ts");
    const list = listForwards(a.name);
    if (a.json) return printJson(list);
    if (list.length === 0) process.stderr.write(`${a.name} has no forwards; add one with \`reasonix remote forward add ${a.name} -L PORT\`\n`);
    for (const f of list) process.stdout.write(`${describeForward(fromConfig(f))}\n`);
  },
});

export const forwardGroup = defineGroup("forward", "Port forwards set up by `remote connect` (-L local, -R remote)", [add, rm, ls]);
