/**
 * The built-in slash commands and the parsers every front end reads typed
 * text with: the terminal chat runs these commands, the web UI runs those it
 * can show and says so for the others, and the serve API refuses them as
 * prompts — a built-in command never reaches the model. Browser-safe.
 */
import { modesOffered, PERMISSION_MODES, type PermissionMode } from "./modes.ts";

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
  c("clear", "Clear the context: start a new conversation (asks first, except in YOLO)"),
  c("cls", "Clear the screen only (Ctrl+L); the conversation goes on"),
  c("model", "Pick the model (the conversation goes on with it)", "[name]"),
  c("mode", "Permission mode for the rest of the session", `[${PERMISSION_MODES.join("|")}]`),
  c("effort", "Reasoning effort for the rest of the session (each vendor maps it onto its own scale)", "[none|minimal|low|medium|high|xhigh|max|default]"),
  c("sessions", "Sessions of this workspace"),
  c("resume", "Continue an earlier session", "[id]"),
  c("rewind", "Go back to before an earlier prompt (code, conversation or both)"),
  c("compact", "Summarise the conversation to free context"),
  c("mcp", "MCP servers: status, tools, prompts and resources"),
  c("context", "Context window use"),
  c("cost", "Tokens and spend of this session"),
  c("todo", "The agent's todo list"),
  c("jobs", "Background shell jobs of this session: id, command, status, runtime"),
  c("memory", "Remembered facts: list, what the last recall chose, instruction files, revisions, archive, recover", "[recall|instructions|archived|revisions <id>|restore <id> <rev>|forget <id>|recover <path>]"),
  c("queue", "Prompts queued for after the running turn: list, show, edit, delete, move, pause, resume, retry", "[list|show N|edit N TEXT|delete N|move N M|pause|resume|retry|clear|add TEXT]"),
  c("goal", "Goal mode: keep working across turns until the objective is complete, blocked or paused", "<objective> | status | pause | resume | clear"),
  c("web", "Open this session in the browser UI too"),
  c("theme", "Colours of the chat and the web UI, saved in your config", "[auto|light|dark|default|ocean|forest|rose|amber]"),
  c("verbose", "Show reasoning and command output in full, or fold them again (Ctrl+O)"),
  c("sandbox", "Sandbox state"),
  c("trust", "Workspace trust status"),
  c("language", "Interface language: zh, en or auto (from the environment)", "[zh|en|auto]"),
  c("reasoning-language", "Language the model is asked to reason in: zh, en or auto (follows the interface)", "[zh|en|auto]"),
  c("paste-image", "Paste the clipboard's picture into the message as [image #N] (also Ctrl+V; Alt+V on Windows)"),
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

/** The argument of `/goal …` (also `/reasonix:goal …`), trimmed; undefined for any other text. */
export function goalArg(text: string): string | undefined {
  const s = parseSlash(text);
  return s?.name === "goal" ? s.arg : undefined;
}

export type GoalAction = { action: "start"; objective: string } | { action: "status" | "pause" | "resume" | "clear" };

const GOAL_WORDS = new Set(["status", "pause", "resume", "clear"]);

/** `/goal`'s argument as an action: "" and "status" → status; a lone control word → that action; anything else is an objective. */
export function parseGoalCommand(arg: string): GoalAction {
  const t = arg.trim();
  if (!t) return { action: "status" };
  if (GOAL_WORDS.has(t.toLowerCase())) return { action: t.toLowerCase() as "status" };
  return { action: "start", objective: t };
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

/** Where a built-in command is typed: the terminal chat, the web UI (and its API), an ACP editor, `reasonix run`, `reasonix mcp serve`. */
export const SURFACES = ["chat", "web", "acp", "run", "mcp"] as const;
export type Surface = (typeof SURFACES)[number];

export const SURFACE_LABEL: Record<Surface, string> = { chat: "the terminal chat", web: "the web UI", acp: "ACP", run: "reasonix run", mcp: "mcp serve" };

const LIVE: readonly Surface[] = ["chat", "web", "acp"];
const CHAT: readonly Surface[] = ["chat"];

/** The surfaces each built-in command runs on (core/host/commands runs it there); elsewhere it says where to go instead. */
export const COMMAND_SURFACES: Record<string, readonly Surface[]> = {
  help: ["chat", "web", "acp", "run"],
  new: ["chat", "web"],
  clear: ["chat", "web"],
  model: LIVE,
  mode: LIVE,
  effort: LIVE,
  rewind: LIVE,
  compact: ["chat", "web", "acp", "run"],
  mcp: ["chat", "web", "acp", "run"],
  goal: LIVE,
  jobs: LIVE,
  theme: ["chat", "web"],
  memory: ["chat", "web", "acp", "run"],
  queue: ["chat", "web", "acp", "run"],
};

/**
 * The modes `/mode` takes on `surface` for a session now in `current`: the
 * chat offers every mode; elsewhere yolo only to a session already running in
 * it (modesOffered). The dispatcher decides with this, and the hints say it.
 */
export const modesOn = (surface: Surface, current: PermissionMode | undefined): readonly PermissionMode[] => (surface === "chat" ? PERMISSION_MODES : modesOffered(current));

/**
 * The built-in commands that run on `surface`, in /help order, as listed to a
 * session in mode `current`: `/mode`'s hint names the modes offered there
 * (modesOn), never one the dispatcher would refuse.
 */
export const builtinsOn = (surface: Surface, current: PermissionMode | undefined): BuiltinCommand[] =>
  BUILTIN_COMMANDS.filter((c) => commandRunsOn(c.name, surface)).map((c) => (c.name === "mode" ? { ...c, args: `[${modesOn(surface, current).join("|")}]` } : c));

/** What to use instead, where a command does not run. */
const ELSEWHERE: Record<string, Partial<Record<Surface, string>>> = {
  new: { acp: "start a new session from your editor", run: "each reasonix run starts a new session unless --resume or -c", mcp: "reasonix_run starts a new session" },
  clear: { acp: "start a new session from your editor", run: "each reasonix run starts a new session unless --resume or -c", mcp: "reasonix_run starts a new session" },
  model: { run: "pass --model", mcp: "pass model to reasonix_run" },
  mode: { run: "pass --permission-mode", mcp: "pass mode to reasonix_run or reasonix_resume" },
  effort: { run: "set reasoning_effort on the provider entry", mcp: "set reasoning_effort on the provider entry" },
  rewind: { run: "use /rewind in reasonix chat", mcp: "use reasonix_rollback" },
  goal: { run: "pass --goal", mcp: "use reasonix run --goal" },
  jobs: { run: "a run's background jobs end with it", mcp: "background jobs end with each reasonix_run" },
  memory: { mcp: "run reasonix memory" },
  queue: { mcp: "each reasonix_run is one prompt; queue follow-ups in reasonix chat or the web UI" },
  theme: { acp: "your editor has its own colours", run: "run reasonix config set ui.theme …", mcp: "run reasonix config set ui.theme …" },
  cls: { web: "the browser keeps its own page" },
  verbose: { web: "reasoning and tool output unfold with a click" },
  sessions: { web: "the session list shows this workspace's sessions", acp: "your editor lists the sessions", run: "run reasonix sessions" },
  resume: { web: "pick the session in the session list", acp: "load the session from your editor", run: "pass --resume ID or -c" },
  context: { web: "the usage line under the prompt box shows the context use" },
  cost: { web: "the usage line under the prompt box shows tokens and spend", run: "the run prints its tokens and spend at the end" },
  todo: { web: "the agent's todo list shows in the conversation" },
  web: { web: "this is the browser UI", run: "run reasonix serve" },
  sandbox: { web: "run reasonix doctor in a terminal", acp: "run reasonix doctor in a terminal", run: "run reasonix doctor" },
  trust: { web: "run reasonix trust in a terminal", acp: "run reasonix trust in a terminal", run: "run reasonix trust" },
  "paste-image": { web: "paste or drop the picture into the prompt box", acp: "attach the picture in your editor", run: "write @name.png in the prompt", mcp: "write @name.png in the prompt" },
  exit: { web: "close the tab", acp: "close the session in your editor", run: "a run ends by itself" },
};

/** True when built-in command `name` runs on `surface` (one not in COMMAND_SURFACES runs in the terminal chat only). */
export const commandRunsOn = (name: string, surface: Surface): boolean => (COMMAND_SURFACES[name] ?? CHAT).includes(surface);

/** The answer to a built-in command typed where it does not run: what it is, and what to use instead. */
export function unavailableText(name: string, surface: Surface): string {
  const chatOnly = !COMMAND_SURFACES[name];
  const hint = ELSEWHERE[name]?.[surface] ?? (chatOnly ? "run it in reasonix chat" : `it runs in ${(COMMAND_SURFACES[name] ?? CHAT).map((s) => SURFACE_LABEL[s]).join(", ")}`);
  return `/${name} is ${chatOnly ? "a terminal chat command, " : ""}not available in ${SURFACE_LABEL[surface]}: ${hint}`;
}
