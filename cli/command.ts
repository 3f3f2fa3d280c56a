import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";

/**
 * One CLI command. Keep the module light: import engine/remote/ssh code
 * inside `run` with `await import()` so `--help` and `--version` stay fast.
 * `run` returns the exit code (undefined = 0) or throws a ReasonixError.
 */
export interface CommandSpec<U> {
  command: string | readonly string[];
  describe: string;
  builder?: (y: Argv) => Argv<U>;
  run: (args: ArgumentsCamelCase<U>) => Promise<number | void> | number | void;
}

export function defineCommand<U>(spec: CommandSpec<U>): CommandModule<{}, U> {
  return {
    command: spec.command,
    describe: spec.describe,
    builder: (spec.builder ?? ((y: Argv) => y)) as CommandModule<{}, U>["builder"],
    handler: async (args) => {
      const code = await spec.run(args);
      if (typeof code === "number") process.exitCode = code;
    },
  };
}

/** A group's subcommands, kept on the module so usage errors can suggest the nearest one. */
export type GroupModule = CommandModule & { subcommands?: CommandModule<any, any>[] };

/** A command that only groups subcommands (e.g. `config`, `remote fs`). */
export function defineGroup(
  command: string,
  describe: string,
  subcommands: CommandModule<any, any>[],
  extra?: (y: Argv) => Argv,
): GroupModule {
  return {
    subcommands,
    command,
    describe,
    builder: (y) => {
      let a = y.command(subcommands).demandCommand(1, `${command.split(" ")[0]}: missing subcommand`);
      if (extra) a = extra(a);
      return a;
    },
    handler: () => {},
  };
}
