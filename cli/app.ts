import yargs from "yargs";
import type { CommandModule } from "yargs";
import { UsageError } from "../core/errors.ts";
import { buildInfo } from "../core/version.ts";
import { commands } from "./commands/index.ts";
import { reportError } from "./output.ts";
import { closest } from "./suggest.ts";

const commandName = (c: CommandModule<any, any>): string => String([c.command].flat()[0]).split(" ")[0]!;

/** Turn yargs' validation text into one line with a "did you mean" hint. */
function usageHint(msg: string, argv: string[]): UsageError {
  const names = commands.map(commandName);
  const unknown = /Unknown (?:argument|command)s?: (\S+)/i.exec(msg)?.[1]?.replace(/,$/, "");
  const first = argv.find((a) => !a.startsWith("-"));
  if (unknown && first && unknown === first && !names.includes(first)) {
    const near = closest(first, names);
    return new UsageError(`unknown command "${first}"`, near ? `did you mean "reasonix ${near}"? (see reasonix --help)` : "see reasonix --help");
  }
  const flag = /Unknown arguments?: (\S+)/i.exec(msg)?.[1]?.replace(/,$/, "");
  if (flag) return new UsageError(`unknown option "${flag.length === 1 ? "-" : "--"}${flag}"`, "see --help for this command's options");
  return new UsageError(msg.split("\n")[0]!, "see --help");
}

export async function runCli(argv: string[]): Promise<number> {
  process.exitCode = 0;
  const app = yargs(argv)
    .scriptName("reasonix")
    .usage("reasonix <command> [options]\n\nA coding agent for your machine and your remote boxes.")
    .command(commands)
    .completion("completion", "Print a shell completion script (bash/zsh): reasonix completion >> ~/.bashrc")
    .demandCommand(1, "missing command")
    .strict()
    .help()
    .alias("help", "h")
    .version(false)
    .option("version", { alias: "v", type: "boolean", describe: "Print the version and exit" })
    .wrap(Math.min(100, process.stdout.columns || 100))
    .showHelpOnFail(false)
    .fail((msg, err) => {
      if (err) throw err;
      throw usageHint(msg ?? "invalid usage", argv);
    });
  try {
    const parsed = await app.parseAsync();
    if (parsed.version) process.stdout.write(`reasonix ${buildInfo().version}\n`);
    return Number(process.exitCode ?? 0);
  } catch (err) {
    return reportError(err);
  }
}
