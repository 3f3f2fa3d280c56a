/**
 * The sessions `reasonix mcp serve` runs for its clients: one engine per
 * workspace, turns started in the background, and every engine event kept
 * with a sequence number so a client can poll (`reasonix_events`).
 */
import { builtinCommand, unavailableText } from "../../protocol/commands.ts";
import { ReasonixError } from "../../errors.ts";
import type { Engine, EngineEvent, EngineSession, PermissionMode, RewindMode, TurnEndReason } from "../../engine/types.ts";
import { SessionHost } from "../../host/session-host.ts";

/** Events kept per session; older ones are dropped (the client sees `dropped`). */
const MAX_EVENTS = 5000;
/**
 * The only mode a server without --allow-writes runs. An allow-list, not a
 * list of writing modes: plan mode runs bash commands the user's allow rules
 * cover (`Bash(npm test:*)` writes), so it can change files too.
 */
const READ_ONLY_MODES = new Set<PermissionMode>(["read-only"]);

export interface TaskOptions {
  /** Make (or reuse) the engine of a workspace. */
  engineFor(workspace: string): Engine;
  allowWrites: boolean;
}

export interface SequencedEvent {
  seq: number;
  event: EngineEvent;
}

class Task {
  events: SequencedEvent[] = [];
  seq = 0;
  dropped = 0;
  lastEnd?: { turn: number; reason: TurnEndReason; error?: string };
  private waiters = new Set<() => void>();
  /** The session with its mode (core/host): busy state and turns go through it. */
  readonly host: SessionHost;
  constructor(engine: Engine, session: EngineSession, public mode: PermissionMode) {
    this.host = new SessionHost(engine, session, { mode });
    session.subscribe((e) => this.push(e));
  }

  get session(): EngineSession {
    return this.host.session;
  }

  push(event: EngineEvent): void {
    this.events.push({ seq: ++this.seq, event });
    if (this.events.length > MAX_EVENTS) this.dropped += this.events.splice(0, this.events.length - MAX_EVENTS).length;
    if (event.type === "turn_end") this.lastEnd = { turn: event.turn, reason: event.reason, ...(event.error ? { error: event.error } : {}) };
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  /** Events after `since`, waiting up to `timeoutMs` for one when there are none. */
  async since(since: number, timeoutMs: number, signal?: AbortSignal): Promise<SequencedEvent[]> {
    const pick = () => this.events.filter((e) => e.seq > since);
    if (pick().length > 0 || timeoutMs <= 0) return pick();
    await new Promise<void>((resolve) => {
      const done = () => (clearTimeout(timer), this.waiters.delete(done), resolve());
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
    return pick();
  }
}

/** A built-in slash command is not a task: it never reaches the model, and the answer says what to use here instead. */
function refuseBuiltin(prompt: string): void {
  const b = builtinCommand(prompt);
  if (b) throw new ReasonixError("builtin_command", unavailableText(b.command.name, "mcp"));
}

export class TaskBoard {
  private readonly tasks = new Map<string, Task>();
  constructor(private readonly opts: TaskOptions) {}

  private checkMode(mode: PermissionMode): void {
    if (!READ_ONLY_MODES.has(mode)) this.needWrites(`permission mode "${mode}" can change files${mode === "plan" ? " (plan mode runs allowed bash commands)" : ""}`);
  }

  /** Refuse `what` (something that changes files) unless writes are allowed. */
  private needWrites(what: string): void {
    if (this.opts.allowWrites) return;
    throw new ReasonixError("mcp-read-only", `${what}, and this server is read-only`, {
      hint: "start it with `reasonix mcp serve --allow-writes` (or set [mcp_server] allow_writes = true in your user config)",
    });
  }

  private task(id: string): Task {
    const t = this.tasks.get(id);
    if (!t) throw new ReasonixError("unknown_session", `no session ${id} in this server`, { hint: "reasonix_status lists them; reasonix_resume reopens a stored one" });
    return t;
  }

  private start(t: Task, prompt: string): void {
    // The turn runs on; its end arrives as a turn_end event.
    t.host.submit(prompt).catch((e) => t.push({ type: "error", code: e instanceof ReasonixError ? e.code : "internal", message: String(e?.message ?? e) }));
  }

  async run(o: { workspace: string; prompt: string; model?: string; mode?: PermissionMode }): Promise<{ session_id: string; seq: number; mode: PermissionMode }> {
    refuseBuiltin(o.prompt);
    const mode = o.mode ?? "read-only";
    this.checkMode(mode);
    const engine = this.opts.engineFor(o.workspace);
    const session = await engine.createSession(o.model ? { model: o.model } : {});
    const t = new Task(engine, session, mode);
    this.tasks.set(session.id, t);
    const seq = t.seq;
    this.start(t, o.prompt);
    return { session_id: session.id, seq, mode };
  }

  async resume(o: { workspace: string; sessionId: string; prompt: string; mode?: PermissionMode }): Promise<{ session_id: string; seq: number; mode: PermissionMode }> {
    refuseBuiltin(o.prompt);
    let t = this.tasks.get(o.sessionId);
    if (!t) {
      const mode = o.mode ?? "read-only";
      this.checkMode(mode);
      const engine = this.opts.engineFor(o.workspace);
      t = new Task(engine, await engine.resumeSession(o.sessionId), mode);
      this.tasks.set(t.session.id, t);
    } else if (o.mode && o.mode !== t.mode) {
      this.checkMode(o.mode);
      t.host.setMode(o.mode);
      t.mode = o.mode;
    }
    if (t.host.busy) throw new ReasonixError("session_busy", "a turn is already running in this session", { hint: "wait for its turn_end (reasonix_events) or reasonix_cancel it" });
    const seq = t.seq;
    this.start(t, o.prompt);
    return { session_id: t.session.id, seq, mode: t.mode };
  }

  cancel(id: string): { session_id: string; was_busy: boolean } {
    const t = this.task(id);
    const busy = t.host.busy;
    t.session.cancel();
    return { session_id: id, was_busy: busy };
  }

  async events(id: string, since: number, timeoutMs: number, signal?: AbortSignal) {
    const t = this.task(id);
    const events = await t.since(since, timeoutMs, signal);
    return { session_id: id, events, next: events.at(-1)?.seq ?? Math.max(since, t.seq), busy: t.host.busy, dropped: t.dropped, last_turn_end: t.lastEnd ?? null };
  }

  async rollback(id: string, turn: number, mode: RewindMode) {
    const t = this.task(id);
    if (mode !== "conversation") this.needWrites(`a ${mode === "both" ? "code and conversation" : "code"} rollback restores files`);
    if (t.host.busy) throw new ReasonixError("session_busy", "cannot roll back while a turn is running", { hint: "reasonix_cancel it first" });
    return await t.session.rewind(turn, mode);
  }

  list() {
    return [...this.tasks.values()].map((t) => ({ session_id: t.session.id, workspace: t.session.workspace, busy: t.host.busy, mode: t.mode, seq: t.seq, last_turn_end: t.lastEnd ?? null, turns: t.session.turns() }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.tasks.values()].map((t) => t.session.close().catch(() => {})));
  }
}
