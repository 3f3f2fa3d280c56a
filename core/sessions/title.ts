// Session titles set by the user. A title is a `title` record appended to the
// session's log (the log only grows); the latest one wins, and "" goes back to
// the automatic title (the first prompt). It is metadata outside the
// conversation, so it is appended without the session's lock: a session that
// `reasonix web` holds open can be renamed from the CLI, and the web list
// shows it at its next refresh.
import { ReasonixError } from "../errors.ts";
import { shownTitle, type SessionStore } from "./store.ts";

export const MAX_TITLE = 120;

/** One line, no control characters, spaces collapsed; "" clears. Too long is an error, not a silent cut. */
export function normalizeTitle(raw: string): string {
  const title = raw.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, " ").replace(/\s+/g, " ").trim();
  if (title.length > MAX_TITLE) throw new ReasonixError("bad_title", `the title is ${title.length} characters; at most ${MAX_TITLE}`, { exitCode: 2 });
  return title;
}

/** Record a title for session `id`; returns the title it now shows. */
export function setSessionTitle(store: SessionStore, id: string, raw: string, opts: { workspace?: string } = {}): string {
  const title = normalizeTitle(raw);
  if (opts.workspace !== undefined) {
    const ws = store.load(id).meta.workspace;
    if (ws !== opts.workspace) throw new ReasonixError("session_workspace", `session ${id} belongs to another workspace`, { exitCode: 2 });
  }
  store.appendDetached(id, { t: "title", title, at: new Date().toISOString() });
  return shownTitle(store.load(id));
}
