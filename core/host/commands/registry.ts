/**
 * The one dispatcher for built-in slash commands. Commands register
 * themselves (./session.ts, ./history.ts); every front end sends what the
 * user typed here and renders the result. A command the surface cannot show
 * answers so, instead of reaching the model.
 */
import { BUILTIN_COMMANDS, builtinCommand, commandRunsOn, unavailableText } from "../../protocol/commands.ts";
import type { CommandContext, CommandResult, HostCommand, Surface } from "./types.ts";

const commands = new Map<string, HostCommand>();

export function registerCommand(c: HostCommand): void {
  if (!BUILTIN_COMMANDS.some((b) => b.name === c.name)) throw new Error(`/${c.name} is not in BUILTIN_COMMANDS (core/protocol/commands.ts)`);
  if (commands.has(c.name)) throw new Error(`/${c.name} is registered twice`);
  commands.set(c.name, c);
}

export const result = (name: string, lines: string[], more: Partial<CommandResult> = {}): CommandResult => ({ name, ok: more.tone !== "error", lines, tone: "info", ...more });
export const failed = (name: string, line: string): CommandResult => result(name, [line], { ok: false, tone: "error" });


/** True when the host runs `/name` itself; false for a command the surface runs (the chat's own view) or none. */
export const hostRuns = (name: string): boolean => !!commands.get(name)?.execute;

/**
 * Run built-in `/name arg` for `ctx.surface`. Undefined when the surface
 * runs this command itself (a chat-only view of the chat's own state).
 */
export async function runCommand(ctx: CommandContext, name: string, arg = ""): Promise<CommandResult | undefined> {
  if (!commandRunsOn(name, ctx.surface)) return result(name, [unavailableText(name, ctx.surface)], { ok: false, tone: "warn", unavailable: true });
  const c = commands.get(name);
  if (!c?.execute) return undefined;
  return c.execute(ctx, arg);
}

/** `text` when it is a built-in command (also `/reasonix:name`): its result; undefined for anything else (prompts, custom commands, skills). */
export async function dispatch(ctx: CommandContext, text: string): Promise<CommandResult | undefined> {
  const b = builtinCommand(text);
  return b ? runCommand(ctx, b.command.name, b.arg) : undefined;
}

/** A surface that renders text only (ACP, run, the API): the result's lines, and the choices as a list to type from. */
export function resultText(r: CommandResult): string {
  const choices = r.choose ? [`${r.choose.title}: /${r.name} ${r.choose.items.map((i) => i.value).join(" | ")}`] : [];
  return [...r.lines, ...choices].join("\n");
}
