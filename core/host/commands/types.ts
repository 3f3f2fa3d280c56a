/**
 * The built-in slash commands as data: each command acts on the open
 * session's host and answers with a result the front end renders (lines, a
 * choice to offer, what changed) — never with terminal or browser output.
 */
import type { GoalView } from "../../engine/types.ts";
import type { Surface } from "../../protocol/commands.ts";
import type { SessionHost } from "../session-host.ts";

export type { Surface };

export interface CommandContext {
  surface: Surface;
  /** The open session (read only by the commands that need one: /help works without). */
  readonly host: SessionHost;
  /** True while a turn runs (default: the host's session says so). A front end that starts turns itself adds its own. */
  busy?(): boolean;
  /** The front end's own Reasonix home (its user config: /theme saves there); default $REASONIX_HOME or ~/.reasonix. */
  home?: string;
  /** Open a new conversation in place of this one (chat, web): resolves with its id. */
  newSession?(): Promise<string>;
}

export interface Choice {
  label: string;
  /** The whole argument to run the command again with. */
  value: string;
  description?: string;
}

export interface CommandResult {
  name: string;
  ok: boolean;
  /** What to tell the user, plain text line by line (the front end styles and cleans it). */
  lines: string[];
  /** "warn": nothing was done, and why (busy, nothing to do). */
  tone: "info" | "warn" | "error";
  /** The command does not run on this surface (lines say what to use instead). */
  unavailable?: boolean;
  /** An argument is needed: offer these and run the command again with the chosen value. */
  choose?: {
    title: string;
    items: Choice[];
    /** What the items are, plural ("models"): a filter that matches none says "No matching models". */
    what?: string;
    /** One line to show with the choice (e.g. why a list is shorter than usual). */
    note?: string;
  };
  /** What the command changed in the session. */
  changed?: "new" | "model" | "mode" | "effort" | "rewound" | "compacted" | "theme";
  /** Structured detail for front ends that show more than lines (help: the commands; rewind: the files). */
  data?: Record<string, unknown>;
  /** /goal start or resume: the goal loop running in the background. */
  loop?: Promise<GoalView>;
}

export interface HostCommand {
  name: string;
  /** Run on the host; absent for commands a surface runs itself (the chat's view of its own state). */
  execute?(ctx: CommandContext, arg: string): Promise<CommandResult> | CommandResult;
}
