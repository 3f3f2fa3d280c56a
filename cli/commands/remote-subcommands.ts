// Extra `reasonix remote …` subcommands contributed by other modules (connect,
// open, serve, forward). Add one import and one array entry per module here;
// cli/commands/remote.ts spreads this list into the `remote` group.
import type { CommandModule } from "yargs";
import { connect, open } from "./remote-connect.ts";
import { forwardGroup } from "./remote-forward.ts";
import { serveGroup } from "./remote-serve.ts";

export const remoteSubcommands: CommandModule<any, any>[] = [connect, open, serveGroup, forwardGroup];
