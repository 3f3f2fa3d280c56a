/**
 * One open session as a front end holds it: the engine session plus what the
 * user chose for it — the permission mode and the reasoning effort — and what
 * every front end needs to know about it: busy or not, steering (or starting
 * a turn when idle), the prompts queued for after the turn and the approvals
 * and questions (the model's `ask`) waiting for an answer. Whatever
 * replaces the session (a model switch, a new or resumed conversation in the
 * chat) goes through here, so those choices follow by construction instead of
 * each front end (chat, serve, ACP) remembering to carry them over.
 */
import type { ApprovalDecision, Engine, EngineEvent, EngineSession, ImageInput, PermissionMode, QuestionAnswer, ShellRun, SteerDisposition, SubmitOptions, TurnEndReason } from "../engine/types.ts";
import { PromptQueue, type QueueItem } from "./queue.ts";

export interface SessionHostOptions {
  /** The mode the user chose (absent: as configured); applied to the session at once. */
  mode?: PermissionMode;
  /** The reasoning effort the user chose (absent: the provider entry's); applied at once. */
  effort?: string;
  /** Called after the host's session was replaced: move subscriptions to `next`. */
  onSession?(next: EngineSession, prev: EngineSession): void | Promise<void>;
}

export class SessionHost {
  private current: EngineSession;
  private chosenMode: PermissionMode | undefined;
  /** The mode YOLO was switched on from (toggleYolo), to go back to. */
  private beforeYolo: PermissionMode | undefined;
  private readonly watchers = new Set<(next: EngineSession, prev: EngineSession) => void>();
  private readonly changeListeners = new Set<() => void>();
  private running: Promise<TurnEndReason> | undefined;
  /** Prompts typed while a turn runs, for after it: on disk beside the session's log, and they follow replace(). */
  readonly queue: PromptQueue;
  /**
   * How this front end starts a queued prompt as a turn (its echo, busy
   * notices); absent, the queue is kept but nothing here runs it.
   */
  queueRunner: ((text: string, opts?: SubmitOptions) => Promise<TurnEndReason>) | undefined;
  /** The front end's own say on whether a queued prompt may start now (serve: its last turn's bookkeeping is done). */
  queueIdle: (() => boolean) | undefined;
  /** Text steered (startIfIdle) into a running turn or goal loop: what no turn read starts the next one (takeUnread). */
  private steeredLive = false;
  private offGoal: () => void;

  constructor(readonly engine: Engine, session: EngineSession, private readonly opts: SessionHostOptions = {}) {
    this.current = session;
    this.queue = new PromptQueue(engine.queueFile(session.id));
    this.queue.onChange(() => this.changed());
    this.offGoal = this.watchGoal(session);
    this.chosenMode = opts.mode;
    if (opts.mode) session.setPermissionMode(opts.mode);
    if (opts.effort) session.setReasoningEffort(opts.effort);
  }

  get session(): EngineSession {
    return this.current;
  }

  /** The provider entry the session runs on. */
  get model(): string {
    return this.current.model;
  }

  /** The permission mode the user chose for this session (absent: as configured). */
  get mode(): PermissionMode | undefined {
    return this.chosenMode;
  }

  /** The reasoning effort set for this session (absent: the provider entry's). */
  get effort(): string | undefined {
    return this.current.reasoningEffort;
  }

  /** True while a turn runs: the engine says so, or one started here has not settled yet. */
  get busy(): boolean {
    return this.current.busy || !!this.running;
  }

  /** Nothing runs and no goal loop is between its turns: text may start a turn. */
  get startable(): boolean {
    return !this.busy && !this.current.goal.running;
  }

  /** The turn started here (submit, steer's start-if-idle) until it settles: how it ended. */
  get turn(): Promise<TurnEndReason> | undefined {
    return this.running;
  }

  /** Start a turn on the session: busy from this call until the turn settles. */
  submit(prompt: string, opts?: SubmitOptions): Promise<TurnEndReason> {
    const turn = opts ? this.current.submit(prompt, opts) : this.current.submit(prompt);
    this.track(turn);
    return turn;
  }

  /** Busy until TURN settles; then what was steered into its end starts (startFollowups). */
  private track(turn: Promise<TurnEndReason>): void {
    this.running = turn;
    const settled = () => {
      if (this.running !== turn) return;
      this.running = undefined;
      this.takeUnread();
      this.startFollowups();
    };
    turn.then(settled, settled);
  }

  /** A goal loop that stops (complete, blocked, paused) leaves unread what was steered into its last turn: that starts the next. */
  private watchGoal(s: EngineSession): () => void {
    return s.goal.onStopped(() => {
      if (s !== this.current) return;
      this.takeUnread();
      this.startFollowups();
    });
  }

  /**
   * What was steered (startIfIdle) into a turn that ended without reading it
   * (its step limit, a planner-only turn, the last turn of a goal loop): the
   * next turn's prompt, ahead of what was steered as it finished.
   */
  private takeUnread(): void {
    if (!this.steeredLive || this.current.goal.running) return;
    this.steeredLive = false;
    this.queue.hold(this.current.takeUnreadSteers(), { first: true });
  }

  /**
   * The user's shell line (the chat's `!command`): run by the engine like the
   * agent's bash call (rules, mode, sandbox), its output for the next turn.
   * Busy while it runs.
   */
  runShell(command: string): Promise<ShellRun> {
    const run = this.current.runShell(command);
    this.track(run.then(() => "done" as const, () => "error" as const));
    return run;
  }

  /**
   * Guidance for the running turn. With `startIfIdle`, text that arrives when
   * nothing runs (and no goal loop is between turns) starts a turn as its
   * prompt instead of waiting unseen for the next one; so does text that
   * arrives while a turn is finishing (it has read guidance for the last
   * time): that turn will not read it, so it starts the next turn the moment
   * nothing runs ("started_turn" too). Nothing steered is left unanswered.
   */
  steer(text: string): SteerDisposition;
  steer(text: string, o: { startIfIdle?: boolean }): SteerDisposition | "started_turn";
  steer(text: string, o: { startIfIdle?: boolean } = {}): SteerDisposition | "started_turn" {
    const s = this.current;
    if (!o.startIfIdle) return s.steer(text);
    if (!text.trim()) return s.steer(text); // the engine's "empty" refusal
    if (s.takesSteering) return this.steerLive(text);
    if (this.startable && this.queueIdle?.() !== false) {
      // Its end (or failure) reaches the front end through the session's events.
      this.submit(text).catch(() => {});
      return "started_turn";
    }
    // A goal loop (between its turns or finishing one): its next turn reads it, or, when the loop stops, it starts one.
    if (s.goal.running) {
      this.steerLive(text);
      return "steer_accepted";
    }
    // Busy with what was not started here (a /compact): it waits for the next turn, as the engine says.
    if (this.busy && !this.running) return s.steer(text);
    // A turn started here is finishing, or the front end's last turn is still settling (queueIdle): its settling starts this.
    // Held on disk (the queue's file) until that next turn has settled: a crash now does not lose it.
    this.queue.hold([text]);
    this.startFollowups();
    return "started_turn";
  }

  /** To the running turn (or goal loop); should it end without reading it, it starts the next turn (takeUnread). */
  private steerLive(text: string): SteerDisposition {
    const d = this.current.steer(text);
    this.steeredLive = true;
    return d;
  }

  /**
   * Start what was steered into a finishing turn (held by the queue, ahead of
   * it and whether or not it is paused), as one prompt in the order typed,
   * when nothing runs. True when it started.
   */
  private startFollowups(): boolean {
    if (!this.queue.holding || !this.startable || this.queueIdle?.() === false) return false;
    const held = this.queue.startHeld()!;
    const run = this.queueRunner ?? ((t: string) => this.submit(t));
    const settled = () => {
      try {
        held.settled();
      } catch {} // a disk that cannot be written: it comes back as a queued prompt, never lost
    };
    run(held.text).then(settled, settled);
    return true;
  }

  /**
   * Queue `text` (and its pictures) for after the running turn, on disk
   * before this returns; when nothing runs and the queue is not paused it starts at once.
   */
  enqueue(text: string, images?: ImageInput[]): QueueItem {
    const item = this.queue.add(text, images);
    this.pumpQueue();
    return item;
  }

  /** Start the next queued prompt when nothing runs, the queue is not paused and a runner is set. True when one started. */
  pumpQueue(): boolean {
    if (this.startFollowups()) return true;
    const run = this.queueRunner;
    if (!run || !this.startable || this.queueIdle?.() === false) return false;
    const item = this.queue.take();
    if (!item) return false;
    const ended = (ok: boolean) => {
      this.queue.finished(item, ok);
      this.pumpQueue();
    };
    run(item.text, item.images?.length ? { images: item.images } : undefined).then((r) => ended(r !== "error"), () => ended(false));
    return true;
  }

  /** The approval requests waiting for an answer now (from any front end serving this host). */
  approvals(): Extract<EngineEvent, { type: "approval_request" }>[] {
    return this.current.history().filter((e): e is Extract<EngineEvent, { type: "approval_request" }> => e.type === "approval_request");
  }

  /** Answer a waiting approval request. Throws when none waits under that id. */
  approve(callId: string, decision: ApprovalDecision): void {
    this.current.approve(callId, decision);
  }

  /** The model's questions (the `ask` tool) waiting for the user's answer now, held like the approvals. */
  questions(): Extract<EngineEvent, { type: "question_request" }>[] {
    // The history keeps answered questions too (each followed by its question_resolved).
    const h = this.current.history();
    const answered = new Set(h.flatMap((e) => (e.type === "question_resolved" ? [e.callId] : [])));
    return h.filter((e): e is Extract<EngineEvent, { type: "question_request" }> => e.type === "question_request" && !answered.has(e.callId));
  }

  /** Answer (or dismiss) a waiting question. Throws when none waits under that id or the answer does not fit it. */
  answerQuestion(callId: string, answer: QuestionAnswer): void {
    this.current.answerQuestion(callId, answer);
  }

  /**
   * Another front end serving this same host (the chat's `/web`) hears of
   * every replacement too: a model switch or a new conversation made in one
   * is the other's. Returns the way to stop listening.
   */
  watch(listener: (next: EngineSession, prev: EngineSession) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /**
   * Hears of every change of the mode, the effort or the session (the model),
   * whichever front end made it: what shows them (the chat's status line while
   * the browser changes them) redraws at once. Returns the way to stop listening.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(): void {
    for (const l of [...this.changeListeners]) l();
  }

  setMode(mode: PermissionMode): void {
    this.current.setPermissionMode(mode);
    this.chosenMode = mode;
    this.changed();
  }

  /**
   * YOLO on (remembering the mode it replaced) or, when on, back to that
   * mode (the configured one when YOLO was where the session started: ask).
   * Returns the mode now in force.
   */
  toggleYolo(): PermissionMode {
    if (this.chosenMode === "yolo") {
      this.setMode(this.beforeYolo && this.beforeYolo !== "yolo" ? this.beforeYolo : "ask");
      this.beforeYolo = undefined;
    } else {
      this.beforeYolo = this.chosenMode ?? "ask";
      this.setMode("yolo");
    }
    return this.chosenMode!;
  }

  /** undefined: back to the provider entry's reasoning_effort. Throws on an unknown value (the engine names it). */
  setEffort(effort: string | undefined): void {
    this.current.setReasoningEffort(effort);
    this.changed();
  }

  /**
   * Put `next` in place of the session (the chat's new or resumed
   * conversation): the chosen mode and effort follow it.
   */
  async replace(next: EngineSession): Promise<void> {
    const prev = this.current;
    if (this.chosenMode) next.setPermissionMode(this.chosenMode);
    if (prev.reasoningEffort && !next.reasoningEffort) next.setReasoningEffort(prev.reasoningEffort);
    this.current = next;
    this.offGoal();
    this.offGoal = this.watchGoal(next);
    this.steeredLive = false;
    if (next.id !== prev.id) this.queue.relocate(this.engine.queueFile(next.id));
    await this.opts.onSession?.(next, prev);
    for (const w of [...this.watchers]) w(next, prev);
    this.changed();
  }

  /**
   * Continue this conversation on provider entry `model` (the engine reopens
   * it with that model): mode and effort stay what they were. When the engine
   * refuses, the conversation is reopened on its old model — still with the
   * same mode and effort — and the error is thrown.
   */
  async switchModel(model: string): Promise<EngineSession> {
    const id = this.current.id;
    // Its background jobs go on in the reopened session.
    await this.current.close({ keepJobs: true }).catch(() => {});
    let next: EngineSession;
    try {
      next = await this.engine.resumeSession(id, { model });
    } catch (e) {
      await this.replace(await this.engine.resumeSession(id));
      throw e;
    }
    await this.replace(next);
    return next;
  }
}
