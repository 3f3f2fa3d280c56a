// The session list: search, grouped by day, relative times, rename in place
// (✎ or double-click), fork and delete; a drawer on phones.
import { useState } from "preact/hooks";
import { forkSession, renameSession } from "../session-actions.ts";
import { deleteSession, newSession, openSession, state, type SessionRow } from "../store.ts";
import { ForkIcon, PencilIcon } from "./Icons.tsx";
import { TitleEdit } from "./TitleEdit.tsx";
import { openMemory } from "../memory.ts";
import { t } from "../../../../protocol/i18n/index.ts";

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

/**
 * Keyboard: the list is one tab stop (a roving tabindex on the rows' open
 * buttons); ↑/↓, Home/End move between rows, →/← through a row's actions
 * (rename, fork, delete), F2 renames, Delete deletes.
 */
let rover: string | null = null;

const ROW_KEYS = new Set(["ArrowDown", "ArrowUp", "Home", "End", "ArrowRight", "ArrowLeft"]);

function onListKey(e: KeyboardEvent): void {
  const el = e.target as HTMLElement;
  const li = el.closest("li[data-session]") as HTMLLIElement | null;
  if (!li || el.tagName === "INPUT") return;
  if (e.key === "F2" || e.key === "Delete") {
    e.preventDefault();
    (li.querySelector(e.key === "F2" ? ".rename" : ".delete") as HTMLButtonElement | null)?.click();
    return;
  }
  if (!ROW_KEYS.has(e.key)) return;
  e.preventDefault();
  if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
    const stops = [...li.querySelectorAll<HTMLButtonElement>("button")];
    const i = stops.indexOf(el as HTMLButtonElement);
    stops[Math.max(0, Math.min(stops.length - 1, i + (e.key === "ArrowRight" ? 1 : -1)))]?.focus();
    return;
  }
  const rows = [...(li.closest("#session-list")?.querySelectorAll<HTMLButtonElement>("li[data-session] button.open") ?? [])];
  const i = rows.findIndex((b) => li.contains(b));
  const to = e.key === "Home" ? 0 : e.key === "End" ? rows.length - 1 : i + (e.key === "ArrowDown" ? 1 : -1);
  rows[Math.max(0, Math.min(rows.length - 1, to))]?.focus();
}

/** The focused row becomes the list's one tab stop. */
function onListFocus(e: FocusEvent): void {
  const li = (e.target as HTMLElement).closest("li[data-session]") as HTMLLIElement | null;
  if (!li) return;
  rover = li.dataset.session ?? null;
  for (const b of (e.currentTarget as HTMLElement).querySelectorAll<HTMLButtonElement>("li[data-session] button.open")) b.tabIndex = li.contains(b) ? 0 : -1;
}

function Row({ s, stop }: { s: SessionRow; stop: boolean }) {
  const [editing, setEditing] = useState(false);
  const title = s.title || "New session";
  const busy = state.busy.has(s.id);
  if (editing) {
    return (
      <li data-session={s.id} class="editing">
        <TitleEdit value={s.title ?? ""} label={`New title for ${title}`} onDone={(t) => {
          setEditing(false);
          // Keyboard users stay on the row they renamed (unless they moved on elsewhere).
          requestAnimationFrame(() => (document.activeElement ?? document.body) === document.body && document.querySelector<HTMLButtonElement>(`#session-list li[data-session="${CSS.escape(s.id)}"] button.open`)?.focus());
          if (t !== null) void renameSession(s.id, t);
        }} />
      </li>
    );
  }
  return (
    <li data-session={s.id} class={`${s.id === state.current ? "active" : ""} ${busy ? "busy" : ""}`}>
      <button type="button" class="open" tabIndex={stop ? 0 : -1} onClick={() => void openSession(s.id)} onDblClick={() => setEditing(true)} title={`resume ${s.id}`} aria-current={s.id === state.current ? "page" : undefined}>
        <span class="title">{s.forkedFrom ? <span class="fork-mark" title="a fork"><ForkIcon /> </span> : null}{title}</span>
        <span class="meta">
          {relativeTime(s.updatedAt)}
          {s.turns ? ` · ${plural(s.turns, "turn")}` : ""}
          {s.model ? ` · ${s.model}` : ""}
          {busy ? " · working" : ""}
        </span>
      </button>
      <span class="row-actions">
        <button type="button" class="rename" tabIndex={-1} aria-label={`rename session ${title}`} title="Rename" onClick={() => setEditing(true)}><PencilIcon /></button>
        <button type="button" class="fork" tabIndex={-1} aria-label={`fork session ${title}`} title="Fork: a new session with this conversation" onClick={() => void forkSession(s.id)}><ForkIcon /></button>
        <button type="button" class="delete" tabIndex={-1} aria-label={`delete session ${title}`} title="delete" onClick={() => {
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
  const stop = rows.some((r) => r.id === rover) ? rover : (rows.find((r) => r.id === state.current) ?? rows[0])?.id;
  return (
    <nav id="sessions" class={`sessions${state.drawer ? " open" : ""}`} aria-label={t("web.sessions")}>
      <button id="new-session" type="button" class="primary wide" onClick={() => void newSession()}>{t("web.newSession")}</button>
      <input id="session-search" type="search" placeholder={t("web.searchSessions")} aria-label={t("web.searchSessions")} value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
      <div id="session-list" onKeyDown={onListKey} onFocusIn={onListFocus}>
        {!rows.length ? <p class="muted">{needle ? t("web.noMatchingSessions") : t("web.noSessions")}</p> : null}
        {[...groups].map(([g, list]) => (
          <section key={g} class="session-group" aria-label={g}>
            <h3>{g}</h3>
            <ul>{list.map((s) => <Row key={s.id} s={s} stop={s.id === stop} />)}</ul>
          </section>
        ))}
      </div>
      <button id="memory-toggle" type="button" class="wide memory-toggle" title={t("web.memoryTitle")} onClick={() => openMemory(true)}>{t("web.memory")}</button>
    </nav>
  );
}
