// The sessions a server has loaded: each one's host (core/host), the turn it
// runs, and its events forwarded to every client — also after a model switch
// replaced the session. Part of SessionManager (./sessions.ts).
import type { Engine, EngineEvent, EngineSession, PermissionMode } from "../engine/types.ts";
import { SessionHost } from "../host/session-host.ts";
import type { TurnEndReason } from "../protocol/turn.ts";
import type { ImageInput } from "../protocol/contract.ts";
import type { EventHub } from "./events.ts";
import { ApiError } from "./api-error.ts";
import { errorMessage, ReasonixError } from "../errors.ts";
import { SHELL_LINE_BUSY, shellLine } from "../protocol/shell-line.ts";

export interface Live {
  /** The session and the mode and effort chosen for it in the UI (core/host). */
  host: SessionHost;
  /** Another front end's host (the chat's `/web`): served, never closed here. */
  shared: boolean;
  /** Stop following the host's session. */
  detach: () => void;
  running?: Promise<unknown>;
  /** How the turn started last ended ("error" when it threw): a queued prompt's result. */
  ended?: Promise<TurnEndReason>;
}

export class LiveSessions {
  private readonly live = new Map<string, Live>();
  /** Hosts another front end holds and lets this server serve (the chat's `/web`): see share(). */
  private readonly shared = new Set<SessionHost>();
  /**
   * The mode and effort chosen in the UI for sessions that were live when the
   * engine was rebuilt (a trust approval, a saved key): they come back with
   * the session instead of falling back to the config.
   */
  private readonly chosen = new Map<string, { mode?: PermissionMode; effort?: string }>();

  constructor(private readonly hub: EventHub) {}

  get(id: string): Live | undefined {
    return this.live.get(id);
  }

  has(id: string): boolean {
    return this.live.has(id);
  }

  entries(): IterableIterator<[string, Live]> {
    return this.live.entries();
  }

  /** Some session is running a turn. */
  anyBusy(): boolean {
    for (const l of this.live.values()) if (l.host.session.busy || l.running) return true;
    return false;
  }

  private readonly idleWaiters: (() => void)[] = [];

  whenIdle(fn: () => void): void {
    if (this.anyBusy()) this.idleWaiters.push(fn);
    else fn();
  }

  /**
   * A prompt that is a shell line (`!command`, core/protocol/shell-line.ts —
   * the one place the server decides) runs as the session's shell line
   * (core/engine/user-shell.ts), never to the model: busy for every client
   * while it runs, like a turn; its card and any approval it needs reach them
   * as the session's events. False when `prompt` is not one.
   */
  async shellLine(id: string, prompt: string, images: boolean, load: () => Promise<unknown>): Promise<boolean> {
    const command = shellLine(prompt);
    if (command === undefined) return false;
    if (images) throw new ApiError(400, "bad_request", "a shell line (!command) takes no pictures");
    await load();
    const l = this.live.get(id);
    if (!l) throw new ApiError(404, "not_live", "that session is not loaded");
    if (l.host.busy || l.running) throw new ApiError(409, "busy", SHELL_LINE_BUSY);
    this.hub.notice({ type: "busy", sessionId: id, busy: true });
    l.running = l.host
      .runShell(command)
      .catch((e) => this.hub.emit(id, { type: "error", code: e instanceof ReasonixError ? e.code : "shell_failed", message: errorMessage(e) }))
      .finally(() => {
        l.running = undefined;
        this.settled(id);
      });
    return true;
  }

  /** A turn (or goal loop) of `id` ended: say so, and run what waited for every turn to end. */
  settled(id: string): void {
    this.hub.notice({ type: "busy", sessionId: id, busy: false });
    if (this.anyBusy()) return;
    for (const fn of this.idleWaiters.splice(0)) fn();
  }

  /**
   * Serve a session another front end holds (the chat's `/web`) through its
   * own host: a model, mode or effort change made here is that front end's
   * and the other way round — one source of truth. Its session is never
   * closed by this server; when the host moves to another conversation, the
   * server follows under the new id.
   */
  share(host: SessionHost): void {
    this.shared.add(host);
  }

  /** The shared host whose session is `id`, now loaded: undefined when none is. */
  loadShared(id: string): Live | undefined {
    const shared = [...this.shared].find((h) => h.session.id === id);
    return shared && this.follow(shared, true);
  }

  /** Load `session` (on `engine`) with the mode and effort chosen for it before a rebuild; `start` starts a turn the server's way. */
  attach(engine: Engine, session: EngineSession, start: (id: string, text: string, images?: ImageInput[]) => Promise<void>): Live {
    const l = this.follow(new SessionHost(engine, session, this.chosen.get(session.id)), false);
    // Its queued prompts start through `start` once the last turn's bookkeeping is done.
    l.host.queueIdle = () => !l.running;
    l.host.queueRunner = async (text, opts) => {
      await start(l.host.session.id, text, opts?.images);
      return l.ended!;
    };
    return l;
  }

  /** Serve `host`'s session: its events go to every client, also after a model switch replaced it. */
  private follow(host: SessionHost, shared: boolean): Live {
    const subscribe = (s: EngineSession) => s.subscribe((ev: EngineEvent) => this.hub.emit(s.id, ev));
    let unsubscribe = subscribe(host.session);
    const unwatch = host.watch((next, prev) => {
      unsubscribe();
      unsubscribe = subscribe(next);
      // A shared host's front end opened another conversation (the chat's /new, a resume).
      if (next.id !== prev.id && this.live.get(prev.id) === l) {
        this.live.delete(prev.id);
        this.live.set(next.id, l);
        this.hub.notice({ type: "sessions_changed" });
      }
    });
    // Every client hears of a change of the queue, whichever front end made it.
    const unqueue = host.queue.onChange(() => this.hub.notice({ type: "queue", sessionId: host.session.id, queue: host.queue.view() }));
    const l: Live = { host, shared, detach: () => (unwatch(), unsubscribe(), unqueue()) };
    this.live.set(host.session.id, l);
    return l;
  }

  /** Unload session `id` (deleted): its running turn is cancelled and awaited; what was chosen for it is forgotten. */
  async remove(id: string): Promise<void> {
    const l = this.live.get(id);
    if (l) {
      if (!l.shared) l.host.queueRunner = undefined; // the cancelled turn's end must not start a queued prompt
      l.host.session.cancel();
      await l.running;
      l.detach();
      if (!l.shared) await l.host.session.close();
      this.live.delete(id);
    }
    this.chosen.delete(id);
  }

  /** Unload every session (the engine is rebuilt or the server stops), keeping what was chosen for each. */
  async closeAll(): Promise<void> {
    const lives = [...this.live.values()];
    for (const { host, shared } of lives) {
      if (shared) continue;
      if (host.mode || host.effort) this.chosen.set(host.session.id, { mode: host.mode, effort: host.effort });
      else this.chosen.delete(host.session.id);
    }
    // A cancelled turn's end must not start a queued prompt: the queue stays on disk for the next load.
    for (const l of lives) if (!l.shared) l.host.queueRunner = undefined;
    for (const l of lives) if (l.host.session.busy) l.host.session.cancel();
    await Promise.allSettled(lives.map((l) => l.running));
    await Promise.allSettled(lives.map(async (l) => {
      l.detach();
      if (!l.shared) l.host.queue.close();
      if (!l.shared) await l.host.session.close();
    }));
    this.live.clear();
  }
}
