// The chat's hold on the engine: which session is live, its permission mode,
// the spend so far and the queue of messages typed while a turn runs. Both
// front ends (full-screen and line mode) drive it.
import { hostname } from "node:os";
import type { Engine, EngineEvent, EngineSession, ImageInput, PermissionMode, TodoItem, Usage } from "../../core/engine/types.ts";
import { SessionHost } from "../../core/host/session-host.ts";
import { t } from "../../core/protocol/i18n/index.ts";
import { plural } from "../../core/plural.ts";

export const MODE_CYCLE: PermissionMode[] = ["ask", "auto", "plan"];

export interface ChatOptions {
  engine: Engine;
  config: Record<string, unknown>;
  mode: PermissionMode;
  model?: string;
}

export interface Stats {
  total: Usage;
  lastInput: number;
  cacheHitPercent: number;
  cost?: { total: number; currency: string };
}

const zero = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheHitTokens: 0 });

export class ChatState {
  /** The live session with the chat's mode and /effort choice, which follow it into the next session or model (core/host). */
  private host: SessionHost | undefined;
  private firstMode: PermissionMode;
  stats: Stats = { total: zero(), lastInput: 0, cacheHitPercent: 0 };
  todos: TodoItem[] = [];
  /** Typed before the session exists; then the host's queue (core/host) holds them. */
  private readonly early: string[] = [];
  private unsubscribe: (() => void) | undefined;
  private listener: ((e: EngineEvent) => void) | undefined;

  constructor(readonly opts: ChatOptions) {
    this.firstMode = opts.mode;
  }

  get session(): EngineSession {
    return this.host!.session;
  }

  /** Messages typed while a turn runs, sent after it: the host's (on disk), so they survive /new, a model switch and a crash. */
  get queue(): readonly string[] {
    return this.host?.queue.texts ?? this.early;
  }

  /** The host's queue is paused (after a crash, a failed item or /queue pause). */
  get queuePaused(): boolean {
    return !!this.host?.queue.paused;
  }

  /** Queue `text` (and its pictures) for after the running turn (on disk first); at a queue limit, the error to show. */
  enqueue(text: string, images?: ImageInput[]): string | undefined {
    try {
      if (this.host) this.host.enqueue(text, images);
      else this.early.push(text);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }

  /** The live session with its mode and effort (core/host): the shared command dispatcher acts on it. */
  get sessionHost(): SessionHost | undefined {
    return this.host;
  }

  /** The session the chat opens with (setup); attach() routes its events. */
  set session(s: EngineSession) {
    const queued = this.early.splice(0);
    this.host = new SessionHost(this.engine, s, { mode: this.mode, onSession: (next, prev) => this.follow(next, prev) });
    for (const t of queued) this.host.queue.add(t);
  }

  get mode(): PermissionMode {
    return this.host?.mode ?? this.firstMode;
  }

  get engine(): Engine {
    return this.opts.engine;
  }

  get model(): string {
    return this.session.model || this.opts.model || "";
  }

  /** Route this session's events to `listener` (replaces the previous session). */
  async attach(session: EngineSession, listener: (e: EngineEvent) => void): Promise<void> {
    this.listener = listener;
    if (!this.host) this.session = session;
    if (session === this.host!.session) await this.follow(session, session);
    else await this.host!.replace(session);
  }

  /**
   * The host's session changed (or is attached the first time): its events;
   * fresh stats for another conversation. The same one reopened (a model
   * switch, or its undoing after a failed one) keeps the status line's figures.
   */
  private async follow(session: EngineSession, old: EngineSession): Promise<void> {
    this.unsubscribe?.();
    if (old.id !== session.id || old === session) {
      this.stats = { total: zero(), lastInput: 0, cacheHitPercent: 0 };
      this.todos = [];
    }
    // The same conversation on another model (here or from /web's browser): /new keeps to it.
    if (old !== session && old.id === session.id && session.model) this.opts.model = session.model;
    this.unsubscribe = session.subscribe((e) => this.onEvent(e));
    if (old !== session && old.id !== session.id) await this.leave(old);
  }

  /** Close a session we move away from; one nothing was said in is deleted (no empty sessions in the list). */
  async leave(s: EngineSession): Promise<void> {
    const empty = s.history().every((e) => e.type === "session");
    await s.close().catch(() => {});
    if (empty) await this.engine.deleteSession(s.id).catch(() => {});
  }

  private readonly closers: (() => Promise<void>)[] = [];

  /** Something that lives as long as the chat (the /web server), ended by close(). */
  onClose(stop: () => Promise<void>): void {
    this.closers.push(stop);
  }

  /** The chat ends: what it started stops (else the /web server would keep the process alive), then the engine closes. */
  async close(): Promise<void> {
    for (const stop of this.closers.splice(0)) await stop().catch(() => {});
    await this.engine.close().catch(() => {});
  }

  async newSession(model?: string): Promise<EngineSession> {
    const s = await this.engine.createSession({ model: model ?? this.opts.model });
    if (model) this.opts.model = model;
    await this.attach(s, this.listener!);
    return s;
  }

  /** Continue this conversation on another provider entry (the engine reopens it with that model; on failure, with its old one). */
  async switchModel(model: string): Promise<EngineSession> {
    const s = await this.host!.switchModel(model);
    this.opts.model = model;
    return s;
  }

  async resume(id: string): Promise<EngineSession> {
    const s = await this.engine.resumeSession(id);
    await this.attach(s, this.listener!);
    return s;
  }

  setMode(mode: PermissionMode): void {
    if (this.host) this.host.setMode(mode);
    else this.firstMode = mode;
  }

  /** Ctrl+Y: YOLO on, or back to the mode it replaced (the host's, so /web sees it). */
  toggleYolo(): PermissionMode {
    if (this.host) return this.host.toggleYolo();
    this.firstMode = this.firstMode === "yolo" ? "ask" : "yolo";
    return this.firstMode;
  }

  cycleMode(): PermissionMode {
    const i = MODE_CYCLE.indexOf(this.mode);
    this.setMode(MODE_CYCLE[(i + 1) % MODE_CYCLE.length]!);
    return this.mode;
  }

  private onEvent(e: EngineEvent): void {
    if (e.type === "usage") {
      this.stats.total = e.total;
      this.stats.lastInput = e.turn.inputTokens;
      this.stats.cacheHitPercent = e.cacheHitPercent;
      if (e.cost) this.stats.cost = { total: e.cost.total, currency: e.cost.currency };
    } else if (e.type === "todo") this.todos = e.items;
    this.listener?.(e);
  }

  /** The provider entry's context window, when the config states one. */
  contextWindow(): number {
    const info = this.engine.models().find((m) => m.name === this.model.split("/")[0]);
    if (info?.contextWindow) return info.contextWindow;
    const providers = (this.opts.config.providers as Record<string, unknown>[] | undefined) ?? [];
    const name = this.model.split("/")[0];
    const p = providers.find((x) => x.name === name || x.model === this.model) ?? providers.find((x) => x.name === this.opts.config.default_model);
    const w = p?.context_window;
    return typeof w === "number" && w > 0 ? w : 0;
  }

  contextPercent(): number | undefined {
    const w = this.contextWindow();
    return w ? Math.min(100, Math.round((this.stats.lastInput / w) * 100)) : undefined;
  }

  sandboxState(): string {
    const sb = this.opts.config.sandbox as Record<string, unknown> | undefined;
    return sb?.bash === "off" ? t("status.sandboxOff") : t("status.sandboxOn");
  }
}

export const compact = (n: number): string => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

/** Background shell jobs (bash run_in_background) still running in the live session. */
export function runningJobs(st: ChatState): number {
  try {
    return st.session.listJobs().filter((j) => j.status === "running").length;
  } catch {
    return 0; // no live session yet
  }
}

/** Background jobs end on their own: `changed` when the running count does (checked each second). */
export function watchJobs(st: ChatState, changed: () => void): ReturnType<typeof setInterval> {
  let shown = 0;
  const t = setInterval(() => {
    const n = runningJobs(st);
    if (n !== shown) changed();
    shown = n;
  }, 1000);
  t.unref?.();
  return t;
}

/** The status line's fields, in order (the front end joins and colours them). */
export function statusFields(st: ChatState, busy: string | undefined): string[] {
  const f = [st.model, t("status.mode", { mode: st.mode })];
  const ctx = st.contextPercent();
  f.push(ctx === undefined ? t("status.ctxTokens", { n: compact(st.stats.lastInput) }) : t("status.ctxPercent", { n: ctx }));
  const u = st.stats.total;
  f.push(t("status.tokens", { n: compact(u.inputTokens + u.outputTokens) }));
  if (st.stats.cost) f.push(`${st.stats.cost.total.toFixed(4)} ${st.stats.cost.currency}`);
  f.push(t("status.cache", { n: st.stats.cacheHitPercent }));
  f.push(st.sandboxState());
  const jobs = runningJobs(st);
  if (jobs) f.push(`${plural(jobs, "job")} running (/jobs)`);
  if (process.env.SSH_CONNECTION || process.env.SSH_TTY) f.push(hostname());
  if (st.queue.length || st.queuePaused) f.push(`queue ${st.queue.length}${st.queuePaused ? " paused" : ""}`);
  if (busy) f.unshift(busy);
  return f;
}
