import type { ApprovalDecision, Engine, EngineEvent, EngineMemory, EngineSession, ModelInfo, PermissionMode, QuestionAnswer, RewindMode, RewindResult, SessionSummary, SteerDisposition } from "../engine/types.ts";
import { errorMessage, ReasonixError } from "../errors.ts";
import type { ImageInput } from "../providers/images.ts";
import type { EventHub } from "./events.ts";
import { goalAction, type GoalReply } from "./goal.ts";
import { endpointCommand, webCommand, type DispatchDeps } from "./session-dispatch.ts";
import type { CommandSource } from "../commands/types.ts";
import type { JobInfo } from "../protocol/contract.ts";
import type { SessionHost } from "../host/session-host.ts";
import { LiveSessions, type Live } from "./live-sessions.ts";
import { ApiError } from "./api-error.ts";
import { SELECTABLE_MODES } from "../protocol/modes.ts";
import { refuseCommand, refuseShellSteer } from "./prompt-guard.ts";

export type { CommandReply, EngineFactory, EngineFactoryOptions, SessionState } from "./session-types.ts";
import type { CommandReply, EngineFactory, SessionState } from "./session-types.ts";

export { ApiError };

const notFound = (id: string) => new ApiError(404, "not_found", `no session "${id}"`);

/**
 * The server's view of the engine: which sessions are loaded, which turn is
 * running, and the engine itself (rebuilt in place when a key is saved).
 * Several sessions may run at once; starting another never cancels a busy one.
 */
export class SessionManager {
  private engine: Engine | undefined;
  private engineError: string | undefined;
  private readonly live: LiveSessions;
  /**
   * Prompts being accepted (their session may still be loading from disk). A
   * cancel that arrives meanwhile marks the entry and stops the turn the
   * prompt starts: Esc right after Enter must not be lost.
   */
  private readonly starting = new Map<string, { cancelled: boolean }>();
  private closing = false;
  /** The Reasonix home whose user config /theme saves to. */
  configHome: string | undefined;

  constructor(
    private readonly factory: EngineFactory | undefined,
    private readonly hub: EventHub,
    readonly workspace: string,
    private model: string | undefined,
    private defaultModel?: string,
  ) {
    this.live = new LiveSessions(hub);
  }

  get ready(): boolean {
    return this.engine !== undefined;
  }

  get error(): string | undefined {
    return this.engineError;
  }

  get selectedModel(): string | undefined {
    return this.model;
  }

  /** (Re)build the engine. Failure is recorded, not thrown: the server keeps serving the setup page. */
  async build(): Promise<boolean> {
    if (!this.factory) {
      this.engineError = "no engine is available in this build";
      return false;
    }
    const old = this.engine;
    this.engine = undefined;
    if (old) await this.closeAll(old);
    try {
      this.engine = await this.factory({ workspace: this.workspace, model: this.model });
      this.engineError = undefined;
      this.hub.notice({ type: "engine_ready", model: this.model });
      return true;
    } catch (e) {
      this.engineError = errorMessage(e);
      this.hub.notice({ type: "engine_error", message: this.engineError });
      return false;
    }
  }

  private need(): Engine {
    if (this.closing) throw new ApiError(503, "shutting_down", "the server is shutting down");
    if (!this.engine) throw new ApiError(503, "engine_unavailable", this.engineError ?? "the engine is not ready");
    return this.engine;
  }

  /** The engine's remembered facts and recall traces (routes/memory.ts). */
  memory(): EngineMemory {
    return this.need().memory();
  }

  models(): ModelInfo[] {
    return this.engine?.models() ?? [];
  }

  /** The provider entry new sessions use: --model, else default_model, else the first configured. */
  selected(): ModelInfo | undefined {
    const all = this.models();
    const want = this.model ?? this.defaultModel;
    return all.find((m) => m.name === want) ?? (this.model ? undefined : all[0]);
  }

  get engineWorkspace(): string {
    return this.engine?.workspace ?? this.workspace;
  }

  setModel(name: string): void {
    if (!this.models().some((m) => m.name === name)) throw new ApiError(400, "unknown_model", `no provider named "${name}"`);
    this.model = name;
  }

  async list(): Promise<SessionState[]> {
    const stored = await this.need().listSessions();
    const out: SessionState[] = stored.map((s) => ({ ...s, live: this.live.has(s.id), busy: this.live.get(s.id)?.host.session.busy ?? false }));
    // A freshly created session may not be on disk until its first turn.
    for (const [id, l] of this.live.entries()) {
      if (!stored.some((s) => s.id === id)) out.unshift({ id, workspace: l.host.session.workspace, model: l.host.model, live: true, busy: l.host.session.busy, title: "", turns: 0 });
    }
    return out;
  }

  async create(model?: string): Promise<EngineSession> {
    const m = model ?? this.model;
    let session: EngineSession;
    try {
      session = await this.need().createSession(m ? { model: m } : undefined);
    } catch (e) {
      // The engine words an unknown model as the command line's `--model "x" …`: say it in the API's words.
      if (m && e instanceof ReasonixError && e.code === "usage" && e.message.startsWith(`--model "${m}"`)) throw new ApiError(400, "unknown_model", `no provider named "${m}"`);
      throw e;
    }
    this.attach(session);
    this.hub.notice({ type: "sessions_changed" });
    return session;
  }

  /**
   * Refuse a session this server does not serve: one of another workspace
   * (sharing this $REASONIX_HOME) answers exactly like one that does not
   * exist, so its workspace path — or its existence — is never revealed.
   */
  private async mustOwn(id: string): Promise<void> {
    if (this.live.has(id)) return;
    if (!(await this.need().listSessions({ all: true })).some((s) => s.id === id)) throw notFound(id);
  }

  /** The loaded session `id` (loaded now when it is not), for the queue routes (./routes/queue.ts). */
  loaded = async (id: string): Promise<Live> => (await this.get(id), this.live.get(id)!);

  /** Serve a session another front end holds (the chat's `/web`) through its own host: see LiveSessions.share. */
  share(host: SessionHost): void {
    this.live.share(host);
  }

  async get(id: string): Promise<EngineSession> {
    const l = this.live.get(id);
    if (l) return l.host.session;
    const shared = this.live.loadShared(id);
    if (shared) return shared.host.session;
    await this.mustOwn(id);
    let session: EngineSession;
    try {
      session = await this.need().resumeSession(id);
    } catch (e) {
      if (e instanceof ApiError) throw e;
      const code = e instanceof ReasonixError ? e.code : "";
      // Deleted or moved between the check and the resume: still say nothing about where.
      if (code === "session_workspace" || code === "session_not_found" || code === "") throw notFound(id);
      throw new ApiError(404, code, errorMessage(e));
    }
    // Another request may have resumed it while we awaited.
    const raced = this.live.get(id);
    if (raced) {
      void session.close();
      return raced.host.session;
    }
    this.attach(session);
    return session;
  }

  private attach(session: EngineSession): void {
    // Queued prompts start like typed ones (busy notices, errors to every client), with the pictures queued with them.
    this.live.attach(this.need(), session, (id, text, images) => this.submit(id, text, images));
  }

  /** Background jobs of a session loaded here (never loads one: the page polls this, also during a delete). */
  jobs(id: string): JobInfo[] {
    return this.live.get(id)?.host.session.listJobs() ?? [];
  }

  isBusy(id: string): boolean {
    return this.live.get(id)?.host.busy ?? false;
  }

  /** Start a turn in the background (a `!command` runs as the session's shell line instead); events stream to every client. */
  async submit(id: string, prompt: string, images?: ImageInput[]): Promise<void> {
    if (await this.live.shellLine(id, prompt, !!images?.length, () => this.get(id))) return;
    refuseCommand(prompt);
    const start = { cancelled: false };
    if (!this.starting.has(id)) this.starting.set(id, start);
    let session: EngineSession;
    try {
      session = await this.get(id);
    } finally {
      if (this.starting.get(id) === start) this.starting.delete(id);
    }
    const l = this.live.get(id)!;
    if (l.host.busy || l.running) throw new ApiError(409, "busy", "this session is already running a turn; cancel it or wait");
    this.hub.notice({ type: "busy", sessionId: id, busy: true });
    const turn = images?.length ? l.host.submit(prompt, { images }) : l.host.submit(prompt);
    if (start.cancelled) session.cancel();
    // The turn is on disk now: lists show its title right away.
    this.hub.notice({ type: "sessions_changed" });
    l.ended = turn.catch(() => "error" as const);
    l.running = turn
      .catch((e) => this.hub.emit(id, { type: "error", code: e instanceof ReasonixError ? e.code : "turn_failed", message: errorMessage(e) }))
      .finally(() => {
        l.running = undefined;
        this.live.settled(id);
        this.hub.notice({ type: "sessions_changed" });
        l.host.pumpQueue(); // the next queued prompt, unless the queue is paused
      });
  }

  /** Stop the running turn, or the one a prompt being accepted is about to start; false when there is neither. */
  cancel(id: string): boolean {
    const start = this.starting.get(id);
    if (start) start.cancelled = true;
    const l = this.live.get(id);
    const running = !!l && (l.host.busy || !!l.running);
    l?.host.session.cancel();
    return running || !!start;
  }

  approve(id: string, callId: string, decision: ApprovalDecision): void {
    const l = this.live.get(id);
    if (!l) throw new ApiError(404, "not_live", "that session has no pending approvals (not loaded)");
    l.host.approve(callId, decision);
  }

  answerQuestion(id: string, callId: string, answer: QuestionAnswer): void {
    const l = this.live.get(id);
    if (!l) throw new ApiError(404, "not_live", "that session has no pending questions (not loaded)");
    l.host.answerQuestion(callId, answer);
  }

  /** The engine's MCP servers as they are now (the settings panel's status column). */
  mcpServers() {
    return this.engine?.mcpServers() ?? [];
  }

  /** default_model was changed (the settings panel): new sessions take it unless a model was picked here. */
  defaultChanged(name: string): void {
    this.defaultModel = name;
  }

  /** Some session is running a turn (a settings change then waits to rebuild the engine). */
  anyBusy(): boolean {
    return this.live.anyBusy();
  }

  /** Run FN now when no turn runs, else once the last running one ends. */
  whenIdle(fn: () => void): void {
    this.live.whenIdle(fn);
  }

  /** The engine's catalog sources (MCP prompts) for GET /api/commands. */
  commandSources(): CommandSource[] {
    return this.engine?.commandSources() ?? [];
  }

  /** A built-in command on a session (POST /api/sessions/:id/command; core/serve/session-dispatch.ts). */
  command(id: string, name: string, arg = ""): Promise<CommandReply> {
    return webCommand(this.dispatch, id, name, arg);
  }

  private get dispatch(): DispatchDeps {
    return { get: (id) => this.get(id), live: this.live, hub: this.hub, configHome: this.configHome, newSession: (m) => this.create(m) };
  }

  /** Goal mode (GET/POST /api/sessions/:id/goal); the loop runs in the background (core/serve/goal.ts). */
  async goal(id: string, action: string, objective?: string): Promise<GoalReply> {
    const session = await this.get(id);
    return goalAction(session, action, objective, {
      busy: (running) => {
        this.hub.notice({ type: "busy", sessionId: id, busy: running });
        this.hub.notice({ type: "sessions_changed" });
      },
      failed: (message) => this.hub.emit(id, { type: "error", code: "goal_failed", message }),
    });
  }

  /**
   * Guidance for the running turn. With `startIfIdle` (the web UI) text that
   * arrives when no turn runs, and no goal loop is between turns, starts a
   * turn as its prompt: the UI hears of a turn's end from an event that can
   * trail the engine, and Enter pressed in that gap must not wait unseen.
   */
  async steer(id: string, text: string, startIfIdle = false): Promise<SteerDisposition | "started_turn"> {
    refuseCommand(text);
    await this.get(id);
    const l = this.live.get(id)!;
    // The host decides whether idle text starts a turn; serve starts it its own way (busy notices, errors to every client).
    if (startIfIdle && l.host.startable && !l.running) {
      await this.submit(id, text);
      return "started_turn";
    }
    refuseShellSteer(text);
    // A turn that is finishing no longer reads guidance: the host starts the next turn with it (the queue's runner, once this turn's bookkeeping is done).
    return startIfIdle ? l.host.steer(text, { startIfIdle }) : l.host.steer(text);
  }

  async rewind(id: string, turn: number, mode: RewindMode): Promise<RewindResult> {
    const session = await this.get(id);
    if (session.busy) throw new ApiError(409, "busy", "cannot rewind while a turn is running; cancel it first");
    const r = await session.rewind(turn, mode);
    this.hub.notice({ type: "sessions_changed" });
    return r;
  }

  /** A new session from this one's conversation just before `turn` (absent: all of it); see core/sessions/fork.ts. */
  async fork(id: string, turn?: number): Promise<EngineSession> {
    await this.mustOwn(id);
    const engine = this.need();
    const session = await engine.forkSession(id, turn !== undefined ? { turn } : {});
    this.attach(session);
    this.hub.notice({ type: "sessions_changed" });
    return session;
  }

  /** Set the title every tab shows ("" = the first prompt); returns the title now shown. */
  async rename(id: string, title: string): Promise<string> {
    await this.mustOwn(id);
    const engine = this.need();
    const shown = await engine.renameSession(id, title);
    this.hub.notice({ type: "sessions_changed" });
    return shown;
  }

  async setMode(id: string, mode: PermissionMode): Promise<void> {
    if (!(SELECTABLE_MODES as readonly string[]).includes(mode)) throw new ApiError(400, "bad_mode", `mode must be one of ${SELECTABLE_MODES.join(", ")}`);
    await endpointCommand(this.dispatch, id, "mode", mode, (r) => new ApiError(400, "bad_mode", r.lines.join("\n")));
  }

  /** The session's reasoning effort ("default": the provider entry's reasoning_effort). */
  async setEffort(id: string, effort: string): Promise<string> {
    const r = await endpointCommand(this.dispatch, id, "effort", effort, (r) => new ApiError(400, "bad_effort", `${r.lines.join("\n")}, or default`));
    return r.data!.effort as string;
  }

  mode(id: string): PermissionMode | undefined {
    return this.live.get(id)?.host.mode;
  }

  /**
   * Continue this session on another provider entry (idle sessions only). The
   * session's host carries the mode and effort chosen in the UI over.
   */
  async setSessionModel(id: string, name: string): Promise<void> {
    if (!this.models().some((m) => m.name === name)) throw new ApiError(400, "unknown_model", `no provider named "${name}"`);
    await endpointCommand(this.dispatch, id, "model", name, (r) =>
      r.tone === "warn" ? new ApiError(409, "busy", "cannot switch the model while a turn is running") : new ApiError(400, String(r.data?.code ?? "model_switch_failed"), r.lines.join("\n")));
    this.hub.notice({ type: "sessions_changed" });
  }

  async history(id: string): Promise<EngineEvent[]> {
    return (await this.get(id)).history();
  }

  async remove(id: string): Promise<void> {
    await this.mustOwn(id);
    await this.live.remove(id);
    await this.need().deleteSession(id);
    this.hub.notice({ type: "sessions_changed" });
  }

  private async closeAll(engine: Engine): Promise<void> {
    await this.live.closeAll();
    await engine.close();
  }

  /** Graceful stop: cancel running turns, let their writes land, close everything. */
  async shutdown(): Promise<void> {
    this.closing = true;
    const e = this.engine;
    this.engine = undefined;
    if (e) await this.closeAll(e);
  }
}
