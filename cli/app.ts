import yargs from "yargs";
import type { CommandModule } from "yargs";
import { UsageError } from "../core/errors.ts";
import { buildInfo } from "../core/version.ts";
import { COMPLETION, helpWidth, USAGE, VERSION_OPTION } from "./top-help.ts";
import { commands } from "./commands/index.ts";
import { reportError } from "./output.ts";
import { closest } from "./suggest.ts";
import type { GroupModule } from "./command.ts";

const commandName = (c: CommandModule<any, any>): string => String([c.command].flat()[0]).split(" ")[0]!;

/**
 * Turn yargs' validation text into one line with a "did you mean" hint. Walks
 * the words of argv down the command tree, so `remote conect` suggests
 * `remote connect` just as `doctr` suggests `doctor`.
 */
/** The flag as the user typed it (`--no-opn`, not yargs' "opn"), without any `=value`. */
function typedFlag(name: string, argv: string[]): string {
  const kebab = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const forms = new Set([`--${name}`, `--${kebab}`, `--no-${name}`, `--no-${kebab}`, `-${name}`]);
  const typed = argv.map((a) => a.replace(/=.*$/, "")).find((a) => forms.has(a));
  return typed ?? `${name.length === 1 ? "-" : "--"}${name}`;
}

/** Options every level knows; anything else before a command is an unknown option, not a missing command. */
const GLOBAL_FLAGS = new Set(["--help", "-h", "--version", "-v"]);

function usageHint(msg: string, argv: string[]): UsageError {
  if (/^missing command/.test(msg)) {
    const stray = argv.find((a) => a.startsWith("-") && a !== "-" && a !== "--" && !GLOBAL_FLAGS.has(a.replace(/=.*$/, "")));
    if (stray) return new UsageError(`unknown option "${stray.replace(/=.*$/, "")}"`, "see reasonix --help for commands and options");
  }
  const unknown = /Unknown (?:argument|command)s?: (\S+)/i.exec(msg)?.[1]?.replace(/,$/, "");
  let level: CommandModule<any, any>[] | undefined = commands;
  const path: string[] = [];
  for (const word of argv.filter((a) => !a.startsWith("-"))) {
    if (!level) break;
    const names: string[] = level.map(commandName);
    if (!names.includes(word)) {
      if (word !== unknown) break;
      const near = closest(word, names);
      const where = ["reasonix", ...path].join(" ");
      return new UsageError(`unknown command "${[...path, word].join(" ")}"`, near ? `did you mean "${where} ${near}"? (see ${where} --help)` : `see ${where} --help`);
    }
    path.push(word);
    const found: GroupModule | undefined = level.find((c: CommandModule<any, any>) => commandName(c) === word);
    level = found?.subcommands;
  }
  if (unknown) return new UsageError(`unknown option "${typedFlag(unknown, argv)}"`, "see --help for this command's options");
  return new UsageError(msg.split("\n")[0]!, "see --help");
}

export async function runCli(argv: string[]): Promise<number> {
  process.exitCode = 0;
  const app = yargs(argv)
    .scriptName("reasonix")
    .usage(USAGE)
    .command(commands)
    .completion(COMPLETION.name, COMPLETION.describe)
    .demandCommand(1, "missing command")
    .strict()
    .help()
    .alias("help", "h")
    .version(false)
    .option("version", { alias: "v", type: "boolean", describe: VERSION_OPTION })
    .wrap(helpWidth())
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
