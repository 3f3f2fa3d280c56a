// The session list: search, grouped by day, relative times, rename in place
// (✎ or double-click), fork and delete; a drawer on phones.
import { useState } from "preact/hooks";
import { forkSession, renameSession } from "../session-actions.ts";
import { deleteSession, newSession, openSession, state, type SessionRow } from "../store.ts";
import { ForkIcon, PencilIcon } from "./Icons.tsx";
import { TitleEdit } from "./TitleEdit.tsx";
import { openMemory } from "../memory.ts";

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export function relativeTime(iso: string | undefined, now = Date.now()): string {
  if (!iso) return "new";
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return plural(Math.round(s / 3600), "hour") + " ago";
  if (s < 7 * 86_400) return plural(Math.round(s / 86_400), "day") + " ago";
  return new Date(t).toLocaleDateString();
}

export function dayGroup(iso: string | undefined, now = new Date()): string {
  if (!iso) return "Today";
  const d = new Date(iso);
  const start = (x: Date) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const days = Math.round((start(now) - start(d)) / 86_400_000);
  if (days <= 0) return "Today";
  if (days === 1) return "Yesterday";
  if (days < 7) return "This week";
  return d.toLocaleDateString(undefined, { year: "numeric", month: "long" });
}

function Row({ s }: { s: SessionRow }) {
  const [editing, setEditing] = useState(false);
  const title = s.title || "New session";
  const busy = state.busy.has(s.id);
  if (editing) {
    return (
      <li data-session={s.id} class="editing">
        <TitleEdit value={s.title ?? ""} label={`New title for ${title}`} onDone={(t) => {
          setEditing(false);
          if (t !== null) void renameSession(s.id, t);
        }} />
      </li>
    );
  }
  return (
    <li data-session={s.id} class={`${s.id === state.current ? "active" : ""} ${busy ? "busy" : ""}`}>
      <button type="button" class="open" onClick={() => void openSession(s.id)} onDblClick={() => setEditing(true)} title={`resume ${s.id}`} aria-current={s.id === state.current ? "page" : undefined}>
        <span class="title">{s.forkedFrom ? <span class="fork-mark" title="a fork"><ForkIcon /> </span> : null}{title}</span>
        <span class="meta">
          {relativeTime(s.updatedAt)}
          {s.turns ? ` · ${plural(s.turns, "turn")}` : ""}
          {s.model ? ` · ${s.model}` : ""}
          {busy ? " · working" : ""}
        </span>
      </button>
      <span class="row-actions">
        <button type="button" class="rename" aria-label={`rename session ${title}`} title="Rename" onClick={() => setEditing(true)}><PencilIcon /></button>
        <button type="button" class="fork" aria-label={`fork session ${title}`} title="Fork: a new session with this conversation" onClick={() => void forkSession(s.id)}><ForkIcon /></button>
        <button type="button" class="delete" aria-label={`delete session ${title}`} title="delete" onClick={() => {
          if (confirm(`Delete session "${title}"? This cannot be undone.`)) void deleteSession(s.id);
        }}>×</button>
      </span>
    </li>
  );
}

export function Sessions() {
  const [q, setQ] = useState("");
  const needle = q.trim().toLowerCase();
  const rows = state.sessions.filter((s) => !needle || `${s.title ?? ""} ${s.id} ${s.model ?? ""}`.toLowerCase().includes(needle));
  const groups = new Map<string, SessionRow[]>();
  for (const s of rows) {
    const g = dayGroup(s.updatedAt);
    groups.set(g, [...(groups.get(g) ?? []), s]);
  }
  return (
    <nav id="sessions" class={`sessions${state.drawer ? " open" : ""}`} aria-label="Sessions">
      <button id="new-session" type="button" class="primary wide" onClick={() => void newSession()}>+ New session</button>
      <input id="session-search" type="search" placeholder="Search sessions" aria-label="Search sessions" value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
      <div id="session-list">
        {!rows.length ? <p class="muted">{needle ? "No matching sessions." : "No sessions yet."}</p> : null}
        {[...groups].map(([g, list]) => (
          <section key={g} class="session-group" aria-label={g}>
            <h3>{g}</h3>
            <ul>{list.map((s) => <Row key={s.id} s={s} />)}</ul>
          </section>
        ))}
      </div>
      <button id="memory-toggle" type="button" class="wide memory-toggle" title="Remembered facts and what recall chose" onClick={() => openMemory(true)}>Memory</button>
    </nav>
  );
}
