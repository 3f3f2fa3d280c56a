// The open session's title above the transcript: click (or ✎) to rename it in
// place; "Fork" starts a new session with the whole conversation; a fork
// links back to where it came from.
import { useState } from "preact/hooks";
import { forkSession, renameSession } from "../session-actions.ts";
import { openSession, type SessionRow } from "../store.ts";
import { ForkIcon, PencilIcon } from "./Icons.tsx";
import { TitleEdit } from "./TitleEdit.tsx";

export interface ChatHeadProps {
  id: string | null;
  title: string;
  forkedFrom?: SessionRow["forkedFrom"];
  /** The original's title, when it is still in the list. */
  fromTitle?: string;
}

export function ChatHead({ id, title, forkedFrom, fromTitle }: ChatHeadProps) {
  const [editing, setEditing] = useState(false);
  if (!id) return null;
  const done = (t: string | null) => {
    setEditing(false);
    if (t !== null) void renameSession(id, t);
  };
  return (
    <div class="chat-head" id="chat-head">
      {editing ? (
        <TitleEdit value={title} label="Session title" onDone={done} />
      ) : (
        <h1 class="chat-title">
          <button type="button" id="chat-title" class="title-text" title="Rename this session" onClick={() => setEditing(true)}>{title || "New session"}</button>
        </h1>
      )}
      {!editing ? <button type="button" id="rename-session" class="icon quiet" aria-label="Rename this session" title="Rename" onClick={() => setEditing(true)}><PencilIcon /></button> : null}
      {forkedFrom ? (
        <button type="button" id="forked-from" class="link forked-from" title={`Open the original (${forkedFrom.id})`} onClick={() => void openSession(forkedFrom.id)}>
          <ForkIcon /> from {fromTitle || forkedFrom.id}{forkedFrom.turn ? `, before turn ${forkedFrom.turn}` : ""}
        </button>
      ) : null}
      <span class="grow" />
      <button type="button" id="fork-session" class="small" title="A new session with this whole conversation (files on disk are not changed)" onClick={() => void forkSession(id)}><ForkIcon /> Fork</button>
    </div>
  );
}
