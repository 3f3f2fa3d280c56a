// `reasonix remote …`: hosts and the connection test (remote-hosts.ts), SFTP
// file operations (remote-fs.ts), and the subcommands other modules contribute
// (remote-subcommands.ts: connect, open, serve, forward).
import { defineGroup } from "../command.ts";
import { fsGroup } from "./remote-fs.ts";
import { hostCommands } from "./remote-hosts.ts";
import { remoteSubcommands } from "./remote-subcommands.ts";

export default defineGroup("remote", "Work on remote hosts over SSH: hosts, connect (tunnel to a remote serve), forwards, files", [
  ...hostCommands, fsGroup, ...remoteSubcommands,
]);
