/**
 * The built-in slash commands every front end runs through (see registry.ts).
 * Importing this module registers them.
 */
import "./session.ts";
import "./history.ts";
import "./jobs.ts";
import "./memory.ts";
import "./queue.ts";
import "./theme.ts";

export { dispatch, hostRuns, resultText, runCommand } from "./registry.ts";
export type { Choice, CommandContext, CommandResult, Surface } from "./types.ts";
