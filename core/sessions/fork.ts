// Fork: a new session whose conversation is another's up to a point.
//
// Like opencode's fork and Claude Code's rewind-to-a-message, the cut is just
// *before* the chosen turn: the new session holds every turn before it, and a
// front end puts that turn's prompt back in the composer to edit and send.
// Without a turn the whole conversation is copied (up to the last finished
// turn: a running turn is not half-copied).
//
// The original log is only read. The new log is written whole and atomically
// (meta, a `fork` record naming the original, the copied records, a title),
// then appended to like any other. Copied are the conversation records;
// left behind are the original's file checkpoints (files on disk are shared
// and not rewound: a rewind in the fork restores only what the fork itself
// changed) and its usage records (spend belongs to the session that spent it).
import { ReasonixError } from "../errors.ts";
import type { SessionRecord } from "./records.ts";
import { replay } from "./replay.ts";
import { newSessionId, type SessionFile, type SessionStore } from "./store.ts";

/** Records a fork does not carry over (see above); `title`/`fork` are the original's own. */
const LEFT_BEHIND = new Set<SessionRecord["t"]>(["checkpoint", "usage", "title", "fork"]);

export interface ForkOptions {
  /** Cut just before this turn; absent = the whole conversation. */
  turn?: number;
  /** Refuse a session of another workspace (the engine passes its own). */
  workspace?: string;
  now?: Date;
}

/** Fork session `id`; returns the new session, open (locked) for appending. */
export function forkSession(store: SessionStore, id: string, opts: ForkOptions = {}): SessionFile {
  const records = store.records(id);
  const state = replay(records);
  if (opts.workspace !== undefined && state.meta.workspace !== opts.workspace) {
    throw new ReasonixError("session_workspace", `session ${id} belongs to workspace ${state.meta.workspace}, not ${opts.workspace}`, { exitCode: 2 });
  }
  let cut = records.length;
  if (opts.turn !== undefined) {
    const mark = state.turns.find((t) => t.turn === opts.turn);
    if (!mark) {
      throw new ReasonixError("fork_turn", `turn ${opts.turn} is not in session ${id} (turns: ${state.turns.map((t) => t.turn).join(", ") || "none"})`, { exitCode: 2 });
    }
    cut = mark.record;
  } else if (state.openTurn !== undefined) {
    cut = state.turns.find((t) => t.turn === state.openTurn)?.record ?? cut;
  }
  const now = (opts.now ?? new Date()).toISOString();
  const newId = newSessionId(opts.now);
  const title = forkTitle(state.title ?? state.turns[0]?.prompt ?? "");
  const out: SessionRecord[] = [
    { ...state.meta, id: newId, createdAt: now },
    { t: "fork", from: id, ...(opts.turn !== undefined ? { turn: opts.turn } : {}), at: now },
    ...records.slice(1, cut).filter((r) => !LEFT_BEHIND.has(r.t)),
    { t: "title", title, at: now },
  ];
  return store.createFrom(out);
}

/** "<original title> (fork)", kept short enough for a title. */
export function forkTitle(original: string): string {
  const base = original.replace(/\s+/g, " ").trim() || "Untitled";
  return `${base.length > 70 ? `${base.slice(0, 69)}…` : base} (fork)`;
}
