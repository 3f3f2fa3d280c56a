/**
 * The built-in slash commands and the parsers every front end reads typed
 * text with: the terminal chat runs these commands, the web UI runs those it
 * can show and says so for the others, and the serve API refuses them as
 * prompts — a built-in command never reaches the model. Browser-safe.
 */

export interface BuiltinCommand {
  name: string;
  /** Argument hint, e.g. "[name]". */
  args?: string;
  description: string;
}

const c = (name: string, description: string, args?: string): BuiltinCommand => ({ name, description, ...(args ? { args } : {}) });

/** In the order the chat's /help lists them. */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  c("help", "Commands and keys"),
  c("new", "Start a new conversation"),
  c("clear", "Clear the screen and start a new conversation"),
  c("model", "Pick the model (the conversation goes on with it)", "[name]"),
  c("mode", "Permission mode for the rest of the session", "[ask|auto|plan|yolo|read-only]"),
  c("effort", "Reasoning effort for the rest of the session (each vendor maps it onto its own scale)", "[none|minimal|low|medium|high|xhigh|max|default]"),
  c("sessions", "Sessions of this workspace"),
  c("resume", "Continue an earlier session", "[id]"),
  c("rewind", "Go back to before an earlier prompt (code, conversation or both)"),
  c("compact", "Summarise the conversation to free context"),
  c("mcp", "MCP servers: status, tools, prompts and resources"),
  c("context", "Context window use"),
  c("cost", "Tokens and spend of this session"),
  c("todo", "The agent's todo list"),
  c("goal", "Goal mode: keep working across turns until the objective is complete, blocked or paused", "<objective> | status | pause | resume | clear"),
  c("web", "Open this session in the browser UI too"),
  c("sandbox", "Sandbox state"),
  c("trust", "Workspace trust status"),
  c("exit", "Leave the chat"),
];

export const builtinCommandEntry = (name: string): BuiltinCommand => {
  const found = BUILTIN_COMMANDS.find((x) => x.name === name);
  if (!found) throw new Error(`no built-in command /${name}`);
  return found;
};

/** `/name rest…` (also `/reasonix:name`): the name and the trimmed rest; undefined when the text is not a slash command. */
export function parseSlash(text: string): { name: string; arg: string } | undefined {
  const m = /^\/(?:reasonix:)?([a-z][a-z0-9_-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1]!, arg: (m[2] ?? "").trim() } : undefined;
}

/** A built-in command typed as a message, else undefined (custom commands and skills are not built-in). */
export function builtinCommand(text: string): { command: BuiltinCommand; arg: string } | undefined {
  const s = parseSlash(text);
  const command = s && BUILTIN_COMMANDS.find((x) => x.name === s.name);
  return command ? { command, arg: s.arg } : undefined;
}

/** Commands every front end runs on the live session (core/commands/session-commands.ts). */
export const SESSION_COMMAND_NAMES = ["compact", "mcp"] as const;

/** `/compact` or `/mcp` exactly (also as `/reasonix:compact`), else undefined. */
export function sessionCommandName(text: string): string | undefined {
  const s = parseSlash(text);
  return s && !s.arg && (SESSION_COMMAND_NAMES as readonly string[]).includes(s.name) ? s.name : undefined;
}

/**
 * The note in `#note` (one line, `#` then text; `##…` headings, `#!` and
 * multi-line messages stay ordinary prompts). Undefined when it is not one.
 */
export function parseNote(text: string): string | undefined {
  const t = text.trim();
  if (!t.startsWith("#") || t.startsWith("##") || t.startsWith("#!") || t.includes("\n")) return undefined;
  const note = t.slice(1).trim();
  return note ? note : undefined;
}
