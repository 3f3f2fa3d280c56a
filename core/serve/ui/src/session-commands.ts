// `/compact` and `/mcp` typed in the prompt box: the server runs them on the
// open session (POST /api/sessions/:id/command, the same code as the
// terminal chat and ACP) instead of sending them to the model.
import { api, sessionPath } from "./api.ts";
import { parseNote, sessionCommandName } from "../../../protocol/commands.ts";

export interface CommandResult {
  ok: boolean;
  text: string;
  /** /compact compacted: the session's compaction event shows it. */
  compacted?: boolean;
}

/** "compact" or "mcp" for exactly `/compact` / `/mcp` (also `/reasonix:…`), else undefined. */
export { sessionCommandName };

export const runSessionCommand = (id: string, name: string): Promise<CommandResult> => api<CommandResult>("POST", sessionPath(id, "command"), { name });

/** `#note` (one line; `##` headings and `#!` stay prompts): the note text, else undefined. */
export const noteText = parseNote;

export const addNote = (text: string): Promise<{ path: string; created: boolean; message: string }> => api("POST", "/api/note", { text });
