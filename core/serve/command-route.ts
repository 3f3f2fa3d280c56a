// POST /api/sessions/:id/command {name, arg?}: a built-in slash command on
// the session, run by the shared dispatcher (SessionManager.command).
import { ApiError } from "./api-error.ts";
import type { CommandReply, SessionManager } from "./sessions.ts";

/** Longest argument taken (a goal objective is the longest one). */
const MAX_ARG = 20_000;

export function commandRoute(sessions: SessionManager, id: string, body: Record<string, unknown>): Promise<CommandReply> {
  const { name, arg } = body;
  if (typeof name !== "string" || name === "") throw new ApiError(400, "bad_request", '"name" must be a non-empty string');
  if (arg !== undefined && (typeof arg !== "string" || arg.length > MAX_ARG)) throw new ApiError(400, "bad_request", `"arg" must be a string of at most ${MAX_ARG} characters`);
  return sessions.command(id, name, arg ?? "");
}
