// Fork and rename: used by the session list, the chat head and the transcript.
// The server tells every open tab that the list changed (sessions_changed),
// so a rename here shows in the other tabs at their next list refresh.
import { api, sessionPath } from "./api.ts";
import { draft } from "./components/Composer.tsx";
import { changed, flashBanner, loadSessions, openSession, setBanner, state } from "./store.ts";

const FILES_NOTE = "Files on disk were not changed (a fork shares the workspace as it is now).";

/**
 * A new session from session `id`: the whole conversation, or (from a message)
 * the conversation before that message, whose text goes back in the box to
 * edit and send, as opencode and Claude Code do.
 */
export async function forkSession(id: string, from?: { turn: number; text: string }): Promise<string | null> {
  try {
    const r = await api<{ id: string }>("POST", sessionPath(id, "fork"), from ? { turn: from.turn } : {});
    if (from) draft.text = from.text;
    await openSession(r.id);
    void loadSessions();
    flashBanner(from ? `Forked into a new session just before that message, which is back in the box to edit and send. ${FILES_NOTE}` : `Forked the whole conversation into a new session. ${FILES_NOTE}`, 8000);
    return r.id;
  } catch (x) {
    setBanner(`Fork failed: ${(x as Error).message}`, "error");
    return null;
  }
}

function showTitle(id: string, title: string | undefined): void {
  const row = state.sessions.find((s) => s.id === id);
  if (!row) return;
  row.title = title;
  state.sessions = [...state.sessions];
  changed();
}

/** Set the title ("" = back to the first prompt); shown at once, put back if the server refuses. */
export async function renameSession(id: string, title: string): Promise<boolean> {
  const before = state.sessions.find((s) => s.id === id)?.title;
  showTitle(id, title.replace(/\s+/g, " ").trim() || before);
  try {
    const r = await api<{ title: string }>("POST", sessionPath(id, "title"), { title });
    showTitle(id, r.title);
    return true;
  } catch (x) {
    showTitle(id, before);
    setBanner(`Rename failed: ${(x as Error).message}`, "error");
    return false;
  }
}
