/**
 * Commands every front end answers itself, on the live session rather than
 * by sending a prompt: `/compact` (summarize the earlier conversation now)
 * and `/mcp` (the workspace's MCP servers). The terminal chat, the web UI
 * (POST /api/sessions/:id/command) and ACP list them from here and run them
 * through runSessionCommand, so the wording is the same everywhere. `/goal`
 * is listed with them (its own runner: core/goal/command.ts).
 */
import type { Engine, EngineSession } from "../engine/types.ts";
import { errorMessage } from "../errors.ts";
import { formatStatuses } from "../mcp/report.ts";
import { GOAL_COMMAND } from "../goal/command.ts";
import type { CommandEntry, CommandSource } from "./types.ts";
import { sessionCommandName } from "../protocol/commands.ts";

const entry = (name: string, description: string): CommandEntry => ({ name, description, kind: "builtin", scope: "builtin", source: "session" });

export const SESSION_COMMANDS: CommandEntry[] = [
  entry("compact", "Summarize the earlier conversation now to free context"),
  entry("mcp", "MCP servers: status, tools, prompts and resources"),
];

/** `/goal` is listed with them (GET /api/commands, ACP); each front end runs it through core/goal/command.ts. */
const GOAL_ENTRY: CommandEntry = { ...entry(GOAL_COMMAND.name, GOAL_COMMAND.description), argumentHint: GOAL_COMMAND.argumentHint };

export const sessionCommandSource: CommandSource = { id: "session", list: () => [...SESSION_COMMANDS, GOAL_ENTRY] };

/** `/compact` or `/mcp` (also as `/reasonix:compact`), else undefined (core/protocol/commands.ts, which the web UI reads too). */
export const sessionCommand = sessionCommandName;

export interface SessionCommandResult {
  ok: boolean;
  text: string;
  /** /compact compacted: the session's `compaction` event has told the user already. */
  compacted?: boolean;
}

export async function runSessionCommand(name: string, on: { session: EngineSession; engine: Engine }): Promise<SessionCommandResult> {
  if (name === "mcp") return { ok: true, text: formatStatuses(on.engine.mcpServers()) };
  if (name !== "compact") return { ok: false, text: `unknown command /${name}` };
  const s = on.session;
  try {
    const r = await s.compact();
    return r
      ? { ok: true, compacted: true, text: `compacted ${r.removedMessages} earlier messages into a summary (${r.summaryChars} characters); the recent messages stay as they were` }
      : { ok: true, text: "nothing to compact yet: the conversation is too short" };
  } catch (e) {
    return { ok: false, text: `compact: ${errorMessage(e)}` };
  }
}
