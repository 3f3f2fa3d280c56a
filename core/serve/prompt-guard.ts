// Text the serve API takes as a prompt or as steering must not be one of the
// built-in commands (core/protocol/commands.ts): the model never gets `/model t`.
import { builtinCommand } from "../protocol/commands.ts";
import { SHELL_LINE_BUSY, shellLine } from "../protocol/shell-line.ts";
import { ApiError } from "./api-error.ts";

/** Where the API does what a built-in command typed as a prompt asks. */
const COMMAND_ROUTE: Record<string, string> = {
  model: "POST /api/sessions/:id/model",
  mode: "POST /api/sessions/:id/mode",
  effort: "POST /api/sessions/:id/effort",
  goal: "POST /api/sessions/:id/goal",
  compact: "POST /api/sessions/:id/command",
  mcp: "POST /api/sessions/:id/command",
  rewind: "POST /api/sessions/:id/rewind",
  new: "POST /api/sessions",
  clear: "POST /api/sessions",
};

/** A built-in command (core/protocol/commands.ts) is never sent to the model as a prompt. */
export function refuseCommand(text: string): void {
  const b = builtinCommand(text);
  if (!b) return;
  const route = COMMAND_ROUTE[b.command.name];
  throw new ApiError(400, "builtin_command", `/${b.command.name} is a command, not a prompt: ${route ? `use ${route}` : "the terminal chat runs it"}`);
}

/** A shell line (`!command`) is never guidance for the model: while a turn runs it waits (409). */
export function refuseShellSteer(text: string): void {
  if (shellLine(text) !== undefined) throw new ApiError(409, "busy", SHELL_LINE_BUSY);
}
