// The chat's `!command`: a shell line run by the session (core/engine/user-shell.ts)
// — sandbox, rules and mode as for the agent's bash — shown as a bash card by
// the session's own events; its output joins the next message to the model.
import { errorMessage } from "../../core/errors.ts";
import { shellLine } from "../../core/protocol/shell-line.ts";
import type { Paint } from "./cards.ts";
import type { ChatState } from "./session.ts";

/** A line the chat runs in the shell: `!` then a command (`!` alone is text); the parser is core/protocol's. */
export const shellCommand = shellLine;

/**
 * Run the shell line; true when `text` was one. `busy` brackets the run (the
 * status line's clock); `print` shows what the card cannot (a turn running),
 * and with `echoOutput` (line mode, whose cards are one line) the output.
 */
export async function shellFromChat(st: ChatState, text: string, p: Paint, print: (lines: string[]) => void, busy: (on: boolean) => void, echoOutput = false): Promise<boolean> {
  const command = shellCommand(text);
  if (command === undefined) return false;
  const host = st.sessionHost;
  if (!host || st.session.busy) {
    print([p.yellow("a turn is running: run the shell line when it ends (or cancel it with Esc)")]);
    return true;
  }
  print([p.dim(`! ${command}`)]);
  busy(true);
  try {
    const r = await host.runShell(command);
    if (echoOutput && !r.refused && r.output.trim()) print(r.output.trimEnd().split("\n"));
    if (!r.refused) print([p.dim("  (its output goes to the model with your next message)")]);
  } catch (e) {
    print([p.red(errorMessage(e))]);
  } finally {
    busy(false);
  }
  return true;
}
