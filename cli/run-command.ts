// `reasonix run "/help"` and the other built-in commands: run by the shared
// dispatcher (core/host/commands) or refused with what to use instead — a
// built-in command never reaches the model as a prompt.
import type { Engine, EngineSession } from "../core/engine/types.ts";
import { UsageError } from "../core/errors.ts";
import { runCommand, resultText, type CommandResult } from "../core/host/commands/index.ts";
import { SessionHost } from "../core/host/session-host.ts";
import { builtinCommand, commandRunsOn, unavailableText } from "../core/protocol/commands.ts";
import { printJson, printJsonLine } from "./output.ts";

export interface RunBuiltin {
  name: string;
  arg: string;
}

/** The built-in command `prompt` is, else undefined; one that does not run in `reasonix run` throws a usage error saying what to use. */
export function runBuiltin(prompt: string): RunBuiltin | undefined {
  const b = builtinCommand(prompt);
  if (!b) return undefined;
  if (!commandRunsOn(b.command.name, "run")) throw new UsageError(unavailableText(b.command.name, "run"));
  return { name: b.command.name, arg: b.arg };
}

/** /help needs no session. */
export const needsSession = (b: RunBuiltin): boolean => b.name !== "help";

/** Run it (on `on`, when it needs a session) and print the result in the run's output format; the exit code. */
export async function printRunBuiltin(b: RunBuiltin, fmt: "text" | "json" | "stream-json", on?: { engine: Engine; session: EngineSession }): Promise<number> {
  let made: SessionHost | undefined;
  const host = () => {
    if (!on) throw new Error(`/${b.name} needs a session`);
    return (made ??= new SessionHost(on.engine, on.session));
  };
  const r: CommandResult = (await runCommand({ surface: "run", get host() { return host(); } }, b.name, b.arg))!;
  // A queue /queue changed here is left as a clean exit leaves it (not as a crash).
  made?.queue.close();
  const exit = r.ok ? 0 : 1;
  const text = resultText(r);
  if (fmt === "json") printJson({ ...(on ? { session_id: on.session.id } : {}), command: b.name, ok: r.ok, exit_code: exit, result: text });
  else if (fmt === "stream-json") printJsonLine({ type: "command", name: b.name, ok: r.ok, text });
  else (r.ok ? process.stdout : process.stderr).write(`${text}\n`);
  return exit;
}
