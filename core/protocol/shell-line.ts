// A shell line (`!command`): typed in the terminal chat, the web UI's composer
// or sent as an ACP prompt, it runs in the shell through the session
// (core/engine/user-shell.ts) instead of going to the model. This is the one
// parser; the server decides, never a front end's own reading of the text.
// Browser-safe: nothing here imports outside core/protocol.

/** The command of a shell line: `!` then a command (`!` alone, or `!` and blanks, is text). */
export const shellLine = (text: string): string | undefined => {
  if (!text.startsWith("!")) return undefined;
  const command = text.slice(1).trim();
  return command ? command : undefined;
};

/** Why a shell line cannot run now: a turn (or another shell line) holds the session. */
export const SHELL_LINE_BUSY = "a turn is running: run the shell line when it ends (or cancel the turn)";
