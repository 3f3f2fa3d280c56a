// App state, fed by the event stream and the JSON API. Components read it
// through useStore(); changes are announced once per animation frame, so a
// burst of streamed deltas costs one render.
import { useEffect, useState } from "preact/hooks";
import { api, sessionPath, type Json } from "./api.ts";
import type { Envelope, Transport } from "./live.ts";
import { addSystem, apply, emptyView, type View } from "./transcript.ts";

export interface SessionRow {
  id: string;
  title?: string;
  model?: string;
  updatedAt?: string;
  createdAt?: string;
  turns?: number;
  busy: boolean;
  live: boolean;
  /** The session this one was forked from (and the turn it was cut before). */
  forkedFrom?: { id: string; turn?: number };
}

export interface ModelRow {
  name: string;
  model: string;
  kind: string;
  hasKey: boolean;
  apiKeyEnv?: string;
  contextWindow?: number;
}

export type Screen = "loading" | "login" | "setup" | "app" | "unreachable";

export const state = {
  screen: "loading" as Screen,
  loginMessage: "",
  authMode: document.body.dataset.auth ?? "token",
  status: null as Json | null,
  sessions: [] as SessionRow[],
  models: [] as ModelRow[],
  /** What new sessions use (the server's selection). */
  selectedModel: null as string | null,
  current: null as string | null,
  view: emptyView(),
  loading: false,
  busy: new Set<string>(),
  lastSeq: 0,
  transport: "offline" as Transport,
  banner: null as { text: string; tone: "info" | "error" } | null,
  /** Provider whose key the key dialog asks for. */
  keyFor: null as string | null,
  drawer: false,
  changesOpen: false,
  mode: null as string | null,
  /** Bumped to ask the transcript to jump to the bottom (open, send). */
  stick: 0,
  /** The message whose Rewind dialog is open. */
  rewindFor: null as { turn: number; text: string } | null,
  /** Short text for the screen-reader status region. */
  announce: "",
};

const listeners = new Set<() => void>();
let scheduled = false;
/** How long the last render took (ms). */
let lastCost = 0;
const CHEAP_MS = 8;

function render(): void {
  scheduled = false;
  const t0 = performance.now();
  for (const l of listeners) l();
  // Preact renders in a microtask queued by the calls above; this one runs after it.
  queueMicrotask(() => (lastCost = performance.now() - t0));
}

/**
 * Re-render soon: right after the current task while renders are cheap (an
 * event shows at once; a WebSocket frame's burst is still one render), on
 * the next animation frame when they are not (at most one per frame).
 */
export function changed(): void {
  if (scheduled) return;
  scheduled = true;
  if (lastCost < CHEAP_MS) queueMicrotask(render);
  else requestAnimationFrame(render);
}

export function useStore(): typeof state {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((t) => t + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return state;
}

export function setBanner(text: string | null, tone: "info" | "error" = "info"): void {
  state.banner = text ? { text, tone } : null;
  changed();
}

/** An info banner that hides itself after `ms`, unless another one replaced it meanwhile. */
export function flashBanner(text: string, ms: number): void {
  setBanner(text);
  const shown = state.banner;
  setTimeout(() => {
    if (state.banner === shown) setBanner(null);
  }, ms);
}

export const isBusy = (): boolean => !!state.current && state.busy.has(state.current);

/** Prompt requests still on their way to the server, by session. */
export const inFlight = new Map<string, Promise<unknown>>();

/**
 * Busy news (live notices, turn events, this tab's own sends) are numbered;
 * a snapshot (the sessions list, a resume) asked for before the latest news
 * about a session arrives later than it and must not undo it.
 */
let busyNews = 0;
const busyNewsAt = new Map<string, number>();

function setBusy(id: string, busy: boolean): void {
  if (busy) state.busy.add(id);
  else state.busy.delete(id);
  const row = state.sessions.find((s) => s.id === id);
  if (row) row.busy = busy;
  // Nothing runs and no turn is open (a shell line ended, or a prompt the server did not start): nothing to wait for.
  if (!busy && id === state.current && !state.view.turnOpen && !inFlight.has(id)) state.view.thinking = false;
}

export function markBusy(id: string, busy: boolean): void {
  busyNewsAt.set(id, ++busyNews);
  setBusy(id, busy);
}

/** Busy as a snapshot asked for at news number `asked` reported it, unless newer news came meanwhile or a prompt is on its way. */
function snapshotBusy(id: string, busy: boolean, asked: number): void {
  if ((busyNewsAt.get(id) ?? 0) > asked || inFlight.has(id)) {
    setBusy(id, state.busy.has(id));
    return;
  }
  setBusy(id, busy);
}

/** Live events that arrive while a session's snapshot is loading, replayed after it. */
let held: Envelope[] | null = null;

export function onEnvelope(env: Envelope): void {
  if (env.seq <= state.lastSeq) return;
  state.lastSeq = env.seq;
  if (env.server) return onNotice(env.server);
  if (!env.sessionId || !env.event) return;
  const ev = env.event;
  if (ev.type === "turn_start") markBusy(env.sessionId, true);
  if (ev.type === "turn_end") markBusy(env.sessionId, false);
  if (env.sessionId !== state.current) return changed();
  if (held) {
    held.push(env);
    return;
  }
  apply(state.view, ev);
  if (ev.type === "approval_request") state.announce = `Approval needed: ${ev.summary ?? ev.name}`;
  if (ev.type === "question_request") state.announce = `Question: ${ev.question}`;
  if (ev.type === "turn_end") state.announce = ev.reason === "done" ? "Reasonix finished." : `Turn ended: ${ev.reason}.`;
  changed();
}

function onNotice(n: Json): void {
  if (n.type === "busy") markBusy(n.sessionId, n.busy);
  else if (n.type === "queue") queueNotice?.(n as never);
  else if (n.type === "sessions_changed") void loadSessions();
  else if (n.type === "engine_error") setBanner(`Engine error: ${n.message}`, "error");
  else if (n.type === "engine_ready") {
    setBanner(null);
    void loadModels();
  }
  changed();
}

/** The queue's notice handler (queue.ts registers it: it imports this module). */
let queueNotice: ((n: Json) => void) | undefined;
export const onQueueChange = (fn: (n: Json) => void): void => {
  queueNotice = fn;
};
let queueOpen: ((id: string) => void) | undefined;
export const onSessionOpen = (fn: (id: string) => void): void => {
  queueOpen = fn;
};

export function setTransport(t: Transport): void {
  state.transport = t;
  changed();
}

export async function loadSessions(): Promise<void> {
  const asked = busyNews;
  try {
    const data = await api<{ sessions: SessionRow[] }>("GET", "/api/sessions");
    state.sessions = data.sessions;
  } catch {
    return;
  }
  for (const s of state.sessions) snapshotBusy(s.id, !!s.busy, asked);
  changed();
}

export async function loadModels(): Promise<void> {
  try {
    const data = await api<{ selected: string | null; models: ModelRow[] }>("GET", "/api/models");
    state.models = data.models;
    state.selectedModel = data.selected;
  } catch {
    return;
  }
  changed();
}

/** The model shown in the picker: the open session's, else what new sessions use. */
export const shownModel = (): string | null => state.view.model ?? state.sessions.find((s) => s.id === state.current)?.model ?? state.selectedModel;

export async function openSession(id: string, push = true): Promise<void> {
  state.current = id;
  state.view = emptyView();
  state.loading = true;
  state.drawer = false;
  state.stick++;
  if (push) history.pushState(null, "", `/sessions/${encodeURIComponent(id)}`);
  held = [];
  changed();
  const asked = busyNews;
  try {
    const data = await api<{ events: Json[]; busy: boolean; seq?: number; model?: string; mode?: string }>("POST", sessionPath(id, "resume"));
    if (state.current !== id) return;
    const view = emptyView();
    if (data.model) view.model = data.model;
    for (const ev of data.events) apply(view, ev);
    state.view = view;
    state.mode = data.mode ?? null;
    snapshotBusy(id, data.busy, asked);
    queueOpen?.(id);
    if (state.busy.has(id) && !view.turnOpen) view.turnOpen = view.thinking = true;
    // Live events newer than the snapshot (the snapshot already has the older ones).
    const snap = data.seq ?? 0;
    for (const env of held ?? []) if (env.seq > snap && env.event) apply(view, env.event);
  } catch (x) {
    addSystem(state.view, `Could not open the session: ${(x as Error).message}`, "error");
  } finally {
    if (state.current === id) {
      held = null;
      state.loading = false;
      state.stick++;
      changed();
    }
  }
}

/**
 * "+ New session" and /new: an empty draft. Nothing is created on the server
 * until the first prompt (createSession), so abandoned drafts never pile up
 * as empty sessions.
 */
export function newSession(): void {
  if (state.current) closeSession();
  state.drawer = false;
  state.stick++;
  changed();
  requestAnimationFrame(() => (document.getElementById("prompt") as HTMLTextAreaElement | null)?.focus());
}

/** Create the session a draft's first prompt (or mode choice) goes to, and open it. */
export async function createSession(): Promise<string | null> {
  try {
    const s = await api<{ id: string }>("POST", "/api/sessions", state.selectedModel ? { model: state.selectedModel } : {});
    await openSession(s.id);
    void loadSessions();
    return s.id;
  } catch (x) {
    setBanner(`Could not create a session: ${(x as Error).message}`, "error");
    return null;
  }
}

export function closeSession(): void {
  state.current = null;
  state.view = emptyView();
  state.mode = null;
  if (location.pathname !== "/") history.pushState(null, "", "/");
  changed();
}

export async function deleteSession(id: string): Promise<void> {
  try {
    await api("DELETE", sessionPath(id));
  } catch (x) {
    setBanner(`Delete failed: ${(x as Error).message}`, "error");
    return;
  }
  state.sessions = state.sessions.filter((s) => s.id !== id);
  if (state.current === id) {
    // Never leave a blank pane: go to the most recent other session, or a fresh start.
    const next = state.sessions[0];
    if (next) await openSession(next.id);
    else closeSession();
    flashBanner("Session deleted.", 2500);
  }
  await loadSessions();
}
