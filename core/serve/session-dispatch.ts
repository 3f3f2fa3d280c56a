// Built-in commands on a served session, run by the dispatcher every front
// end uses (core/host/commands): POST /api/sessions/:id/command, and the
// endpoints of their own (…/mode, …/effort, …/model) with their own errors.
import type { EngineSession } from "../engine/types.ts";
import { errorMessage } from "../errors.ts";
import { runCommand, resultText, type CommandContext, type CommandResult } from "../host/commands/index.ts";
import { BUILTIN_COMMANDS } from "../protocol/commands.ts";
import { ApiError } from "./api-error.ts";
import type { EventHub } from "./events.ts";
import type { LiveSessions } from "./live-sessions.ts";
import type { CommandReply } from "./session-types.ts";

export interface DispatchDeps {
  /** The session, loaded (and live) when this resolves. */
  get(id: string): Promise<EngineSession>;
  live: LiveSessions;
  hub: EventHub;
  /** The Reasonix home whose user config /theme saves to. */
  configHome?: string;
  newSession(model?: string): Promise<EngineSession>;
}

/** The web UI's view of a loaded session for the command dispatcher. */
function context(d: DispatchDeps, id: string): CommandContext {
  const l = d.live.get(id)!;
  return { surface: "web", ...(d.configHome ? { home: d.configHome } : {}), host: l.host, busy: () => l.host.busy || !!l.running, newSession: async () => (await d.newSession(l.host.model)).id };
}

/**
 * A built-in command on a session. A command the web UI cannot show answers
 * so (ok false, unavailable); /new answers the new session's id.
 */
export async function webCommand(d: DispatchDeps, id: string, name: string, arg: string): Promise<CommandReply> {
  if (!BUILTIN_COMMANDS.some((c) => c.name === name)) throw new ApiError(400, "bad_command", `"name" must be a built-in command (${BUILTIN_COMMANDS.map((c) => c.name).join(", ")})`);
  const session = await d.get(id);
  if (name === "compact" && session.busy) throw new ApiError(409, "busy", "cannot compact while a turn is running; wait for it or cancel it first");
  const r = (await runCommand(context(d, id), name, arg))!;
  if (r.loop) {
    // A goal loop drives turns in the background: clients see it as busy, like POST …/goal.
    d.hub.notice({ type: "busy", sessionId: id, busy: true });
    r.loop.catch((e) => d.hub.emit(id, { type: "error", code: "goal_failed", message: errorMessage(e) })).finally(() => d.live.settled(id));
  }
  if (r.changed) d.hub.notice({ type: "sessions_changed" });
  return { ok: r.ok, text: resultText(r), ...(r.changed === "compacted" ? { compacted: true } : {}), ...(r.unavailable ? { unavailable: true } : {}), ...(r.changed ? { changed: r.changed } : {}), ...(r.choose ? { choose: r.choose } : {}), ...(r.data ? { data: r.data } : {}) };
}

/** Built-in `/name arg` for an endpoint of its own: the dispatcher's rules, the endpoint's errors (`refused`). */
export async function endpointCommand(d: DispatchDeps, id: string, name: string, arg: string, refused: (r: CommandResult) => ApiError): Promise<CommandResult> {
  await d.get(id);
  const r = (await runCommand(context(d, id), name, arg))!;
  if (!r.ok) throw refused(r);
  return r;
}
