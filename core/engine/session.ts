/**
 * One live session: the agent loop, approvals, checkpoints and the log.
 * Everything that happens is committed to the session log first and then
 * emitted, so a crash at any point leaves a log that resumes cleanly.
 *
 * This file holds the session's lifecycle and its EngineSession surface
 * (turn start and end, steering, planner, compact, rewind, close). The jobs
 * live beside it: shared state and plumbing in session-core.ts, a turn's
 * steps in turn-loop.ts, tool rounds in tool-round.ts, approvals in
 * approvals.ts, compaction in session-compact.ts, usage records in usage.ts.
 */
import { rmSync } from "node:fs";
import { ReasonixError, errorMessage } from "../errors.ts";
import { EFFORTS, isEffort } from "../providers/reasoning.ts";
import { checkVision, type ImageInput } from "../providers/images.ts";
import { imageReferences } from "./images.ts";
import { rewindSession } from "../sessions/rewind.ts";
import type { RewindMode } from "../sessions/records.ts";
import { applyRecord, danglingToolCalls } from "../sessions/replay.ts";
import type { SessionFile } from "../sessions/store.ts";
import { gitGuardAtStart } from "../sandbox/git-guard.ts";
import { GoalDriver } from "../goal/driver.ts";
import type { PlannerHost } from "../planner/planner.ts";
import type { ApprovalDecision, ElicitAnswer, QuestionAnswer, EngineEvent, EngineSession, PermissionMode, RewindResult, ShellRun, SteerDisposition, SubmitOptions, TurnEndReason } from "./types.ts";
import { SessionCore, now, type SessionDeps } from "./session-core.ts";
import { runSteps } from "./turn-loop.ts";
import { maybeCompact } from "./session-compact.ts";
import { recordUsage } from "./usage.ts";
import { execute } from "./tool-round.ts";
import { runUserShell, withShellNotes } from "./user-shell.ts";

export { priceOf, type Prices } from "../providers/pricing.ts";
export type { SessionDeps } from "./session-core.ts";
export { isContextOverflow } from "./turn-loop.ts";

export class LiveSession extends SessionCore implements EngineSession {
  readonly recovered = { interruptedTools: 0 };

  constructor(file: SessionFile, deps: SessionDeps) {
    super(file, deps);
    // The tool block is part of the cached prefix: built here, and rebuilt only
    // when an outside source's tools changed, at a turn boundary (syncTools).
    this.useTools(deps.toolSource?.snapshot());
    this.repair();
    // Git state a killed Reasonix left in the workspace (and the walk later commands compare against).
    if (deps.pathPolicy) for (const n of gitGuardAtStart(deps.pathPolicy.writeRoots, deps.pathPolicy.reasonixHome).notes) this.notice("git_state", n);
    deps.hooks?.attach({ sessionId: this.id, warn: (code, message) => this.notice(code, message) });
    // Goal mode (core/goal): its state lives in this session's log as `goal` records.
    this.goal = new GoalDriver({
      session: this,
      provider: deps.provider,
      config: deps.config,
      saved: this.state.goal,
      record: (change, goal, message) => {
        this.commit({ t: "goal", change, goal, ...(message ? { message } : {}), at: now() });
        this.emit({ type: "goal", change, goal, ...(message ? { message } : {}) });
      },
      warn: (code, message) => this.notice(code, message),
      note: (content) => this.addDriverNote(content),
      // The evaluator runs on the session's own model: its usage is priced like the executor's.
      spent: (usage) => recordUsage(this, this.state.openTurn ?? Math.max(0, this.state.nextTurn - 1), usage, { role: "goal_evaluator", prices: this.deps.prices ?? this.deps.provider.prices }),
    });
  }
  readonly goal: GoalDriver;

  offerElicitation(on: boolean): void {
    this.desk.offered = on;
  }

  answerElicitation(id: string, answer: ElicitAnswer): void {
    this.desk.answer(id, answer);
  }

  history(): EngineEvent[] {
    const h = [...this.state.history];
    if (!this.abort) return h;
    // A turn is running: what a front end that just (re)connected must also see
    // to catch up — the step streaming now and the approvals waiting for an answer.
    if (this.partial.reasoning) h.push({ type: "reasoning_delta", text: this.partial.reasoning });
    if (this.partial.text) h.push({ type: "text_delta", text: this.partial.text });
    h.push(...this.approvals.pending(), ...this.desk.pending());
    return h;
  }

  /** Turns that can be rewound to. */
  turns(): { turn: number; prompt: string }[] {
    return this.state.turns.map((t) => ({ turn: t.turn, prompt: t.prompt }));
  }

  /** Close what a crash left open: unanswered tool calls and an unfinished turn. */
  private repair(): void {
    const turn = this.state.openTurn ?? this.state.nextTurn - 1;
    for (const c of danglingToolCalls(this.state.messages)) {
      this.recovered.interruptedTools++;
      // A question that was waiting (the `ask` tool): shown as not answered; the turn it belonged to is over, so nothing waits.
      const asked = this.state.openQuestions?.[c.id];
      if (asked) this.commit({ t: "question_answer", turn, callId: c.id, answer: { dismissed: true, reason: "the session stopped before it was answered" }, at: now() });
      const content = asked
        ? "error: the session stopped while the question waited for the user's answer; it was not answered (ask again if it still matters)"
        : "error: the session stopped before this tool call finished; its effect is unknown";
      this.commit({ t: "msg", turn, msg: { role: "tool", callId: c.id, name: c.name, content, isError: true } });
    }
    if (this.state.openTurn !== undefined) {
      this.commit({ t: "turn_end", turn: this.state.openTurn, reason: "error", error: "interrupted: the process stopped during this turn", at: now() });
    }
  }

  submit(prompt: string, opts: SubmitOptions = {}): Promise<TurnEndReason> {
    if (this.closed) return Promise.reject(new ReasonixError("session_closed", "session is closed"));
    if (this.abort) return Promise.reject(new ReasonixError("session_busy", "a turn is already running in this session"));
    const p = this.runTurn(prompt, opts.images);
    this.running = p.catch(() => "error" as const);
    return p;
  }

  private async runTurn(prompt: string, attached?: ImageInput[]): Promise<TurnEndReason> {
    const ac = new AbortController();
    this.abort = ac;
    this.steeringClosed = false;
    // Commands, @references and prompt hooks first, so the turn starts with the message it will send.
    let content: string | { failed: unknown } = prompt;
    if (this.deps.prepare) content = await this.deps.prepare(prompt, ac.signal).catch((e: unknown) => ({ failed: e }));
    // A command's `model:` front matter runs this one turn on that provider entry.
    if (typeof content === "string") content = this.useTurnModel(content);
    // Pictures: attached by the front end, or @shot.png in the text; only to a vision model.
    let images: ImageInput[] = [];
    if (typeof content === "string") {
      try {
        images = [...(attached ?? []), ...imageReferences(prompt, this.workspace, this.deps.pathPolicy)];
        checkVision(images, this.provider.vision === true, this.provider.model, this.provider.name);
      } catch (e) {
        content = { failed: e };
      }
    }
    const turn = this.state.nextTurn;
    this.commit({ t: "turn_start", turn, prompt, at: now() });
    this.emit({ type: "turn_start", sessionId: this.id, turn, prompt });
    if (typeof content === "string") this.commit({ t: "msg", turn, msg: { role: "user", content: withShellNotes(this, content), ...(images.length ? { images } : {}) } });
    let reason: TurnEndReason = "done";
    let error: string | undefined;
    let rollback = false;
    this.endError = undefined;
    this.needsUser = undefined;
    this.cutShort = "";
    try {
      if (typeof content !== "string") throw content.failed;
      // An explicit plan request goes to the planner first (never in Plan Mode, the executor's own workflow).
      const planned = this.deps.planner && this.deps.gate.mode !== "plan" ? await this.deps.planner.beforeTurn(this.plannerHost(turn, ac.signal), prompt) : undefined;
      reason = planned ? planned.end : await runSteps(this, turn, ac.signal);
      error = planned ? planned.error : this.endError;
      rollback = !!planned?.rollback;
      this.steeringClosed = true;
    } catch (e) {
      this.steeringClosed = true;
      if (ac.signal.aborted) {
        reason = "cancelled";
        // The user saw this text stream in; keep it (the model sees it too next turn).
        if (this.cutShort.trim()) {
          this.commit({ t: "msg", turn, msg: { role: "assistant", content: this.cutShort } });
          this.emit({ type: "assistant", text: this.cutShort });
        }
      } else {
        reason = "error";
        error = errorMessage(e);
        if (e instanceof ReasonixError && e.hint) error += ` (${e.hint})`;
        const code = e instanceof ReasonixError ? e.code : "internal";
        this.emit({ type: "error", code, message: error });
      }
    } finally {
      try {
        // Whatever happened, leave every tool call answered.
        for (const c of danglingToolCalls(this.state.messages)) {
          this.commit({ t: "msg", turn, msg: { role: "tool", callId: c.id, name: c.name, content: "error: cancelled before it ran", isError: true } });
        }
        this.commit({ t: "turn_end", turn, reason, ...(error ? { error } : {}), at: now() });
        // A failed plan-only/approval turn leaves no half-planned tail in the conversation.
        if (rollback) {
          this.commit({ t: "rewind", turn, mode: "conversation", at: now() });
          this.notice("planner_rolled_back", error ?? "the planner failed; the turn was rolled back");
        }
      } finally {
        // The turn is reported done only once its records are on disk (docs/how-fast.md, "Durability").
        const unsynced = await this.file.flushed().then(() => undefined, (e: unknown) => e);
        if (unsynced !== undefined) {
          reason = "error";
          error = `the session log could not be written to disk: ${errorMessage(unsynced)}`;
          this.emit({ type: "error", code: "session_log", message: error });
        }
        this.abort = null;
        this.turnProvider = undefined;
        this.approvals.denyAll();
        this.partial = { text: "", reasoning: "" };
      }
    }
    // Cancelled before it read what the user steered: that waits for the next turn, and the user hears so.
    if (reason === "cancelled" && this.steers.some((m) => m.text !== undefined)) {
      this.steers = this.steers.map((m) => ({ content: m.content }));
      this.notice("steer_unread", "the turn was cancelled before it read what you steered: it goes with your next message");
    }
    this.emit({ type: "turn_end", turn, reason, ...(error ? { error } : {}) });
    await this.deps.hooks?.fire("Stop", { reason, stop_hook_active: false });
    return reason;
  }

  /**
   * Surface an approval asked elsewhere (a subagent's) as this session's own:
   * front ends see the request and answer it with approve(); `answer` gets the
   * decision. Returns a function that withdraws the request unanswered.
   */
  relayApproval(request: Extract<EngineEvent, { type: "approval_request" }>, answer: (d: ApprovalDecision) => void): () => void {
    return this.approvals.relay(request, answer);
  }

  /** A subagent's progress, shown live by the front ends (not recorded: the child's own log holds its work). */
  reportSubagent(p: import("../agents/events.ts").SubagentProgress): void {
    this.emit({ type: "subagent", ...p });
  }

  /** Goal start (core/planner/goal-hook.ts): the planner's plan for the objective; undefined without a planner. */
  planForGoal(objective: string, signal: AbortSignal): Promise<string | undefined> {
    return this.deps.planner ? this.deps.planner.planForGoal(this.plannerHost(this.state.nextTurn, signal), objective) : Promise.resolve(undefined);
  }

  /** What the planner may do in this session: read-only tools through the rules, the plan record, approvals. */
  private plannerHost(turn: number, signal: AbortSignal): PlannerHost {
    const ctx = this.toolContext(turn, signal, new Set());
    return {
      signal,
      headless: this.deps.headless,
      messages: () => this.state.messages,
      preamble: () => this.state.preamble,
      runTool: async (tool, input) => {
        const d = this.deps.gate.check(tool, input);
        return d.action === "allow" ? execute(this, tool, input, ctx) : { ok: false, output: `refused: ${d.reason}` };
      },
      recordPlan: (route, plan, text) => {
        this.commit({ t: "plan", turn, route, plan, text, at: now() });
        this.emit({ type: "plan", route, plan, text });
      },
      addMessage: (msg) => {
        this.commit({ t: "msg", turn, msg });
        if (msg.role === "assistant") this.emit({ type: "assistant", text: msg.content });
      },
      ask: (request) => this.approvals.ask(request, signal),
      warn: (code, message) => this.notice(code, message),
      spent: (usage, prices) => recordUsage(this, turn, usage, { role: "planner", prices }),
    };
  }

  approve(callId: string, decision: ApprovalDecision): void {
    this.approvals.answer(callId, decision);
  }

  answerQuestion(callId: string, answer: QuestionAnswer): void {
    this.approvals.answerQuestion(callId, answer);
  }

  setPermissionMode(mode: PermissionMode): void {
    this.deps.gate.setMode?.(mode);
  }

  get reasoningEffort(): string | undefined {
    return this.effort;
  }
  setReasoningEffort(effort: string | undefined): void {
    if (effort !== undefined && !isEffort(effort)) throw new ReasonixError("usage", `unknown reasoning effort "${effort}" (known: ${EFFORTS.join(", ")})`);
    this.effort = effort;
  }

  cancel(): void {
    this.abort?.abort(new ReasonixError("cancelled", "cancelled by the user"));
  }

  /**
   * Guidance from the user while a turn runs: it joins the conversation as a
   * user message at the next model step of the running turn (the system prompt
   * and the earlier messages stay byte-identical). Idle, it waits for the next
   * turn's first step.
   */
  steer(text: string): SteerDisposition {
    if (this.closed) throw new ReasonixError("session_closed", "session is closed");
    if (!text.trim()) throw new ReasonixError("steer_empty", "steering guidance is empty");
    const disposition = this.takesSteering ? "steer_accepted" : "queued_followup";
    this.steers.push({ content: steerMessage(text), text });
    return disposition;
  }

  /** Not what waits after a cancel: that goes with the next message, as the user was told (runTurn). */
  takeUnreadSteers(): string[] {
    if (this.abort) return [];
    const texts = this.steers.flatMap((m) => (m.text === undefined ? [] : [m.text]));
    this.steers = this.steers.filter((m) => m.text === undefined);
    return texts;
  }

  /**
   * A note from the host, not the user (the goal driver's strategy redirect):
   * sent as worded, as a user-role message at the next model step, like
   * steering but without steering's "the user added this" label.
   */
  addDriverNote(content: string): void {
    if (this.closed) throw new ReasonixError("session_closed", "session is closed");
    this.steers.push({ content });
  }

  /** Apply the prepared command's `model:` (a warning when it was ignored); the prepared text, or why the turn cannot start. */
  private useTurnModel(content: string): string | { failed: unknown } {
    const tm = this.deps.turnModel?.();
    if (tm?.warning) this.notice("command_model_ignored", tm.warning);
    if (!tm?.name || tm.name === this.deps.modelName || !this.deps.providerFor) return content;
    try {
      this.turnProvider = this.deps.providerFor(tm.name);
      return content;
    } catch (e) {
      return { failed: e };
    }
  }

  /**
   * Compact now (`/compact`), between turns: the same summary request as the
   * automatic compaction, with PreCompact's trigger "manual". Null when there
   * is no middle worth summarizing. Busy while it runs (cancel() stops it).
   */
  async compact(): Promise<{ removedMessages: number; summaryChars: number } | null> {
    if (this.closed) throw new ReasonixError("session_closed", "session is closed");
    if (this.abort) throw new ReasonixError("session_busy", "cannot compact while a turn is running", { hint: "wait for the turn to end or cancel it (Esc), then /compact" });
    const ac = new AbortController();
    this.abort = ac;
    const run = (async () => {
      const r = await maybeCompact(this, Math.max(0, this.state.nextTurn - 1), ac.signal, undefined, true, "manual");
      return r.compacted ? { removedMessages: r.removed!, summaryChars: r.summaryChars! } : null;
    })();
    this.running = run.then(() => "done" as const, () => "error" as const);
    try {
      return await run;
    } finally {
      this.abort = null;
    }
  }

  /** Rewind to just before `turn`: files, conversation, or both. */
  async rewind(turn: number, mode: RewindMode): Promise<RewindResult> {
    if (this.abort) throw new ReasonixError("session_busy", "cannot rewind while a turn is running");
    const result = rewindSession(this.file, turn, mode);
    applyRecord(this.state, this.file.records, this.file.records.length - 1);
    if (result.files.length > 0) this.readStamps.clear();
    return result;
  }

  /** The user's `!command` (see user-shell.ts): busy while it runs, so cancel() stops it and nothing else starts. */
  async runShell(command: string): Promise<ShellRun> {
    if (this.closed) throw new ReasonixError("session_closed", "session is closed");
    if (this.abort) throw new ReasonixError("session_busy", "a turn is running in this session", { hint: "wait for it to end, or cancel it (Esc)" });
    const ac = new AbortController();
    this.abort = ac;
    const run = runUserShell(this, command, ac.signal);
    this.running = run.then(() => "done" as const, () => "error" as const);
    try {
      return await run;
    } finally {
      this.abort = null;
      this.approvals.denyAll();
    }
  }

  listJobs() {
    return this.jobs.list();
  }

  async close(opts: { keepJobs?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.cancel();
    if (this.running) await this.running;
    this.closed = true;
    // Background jobs end with the session, unless the conversation is reopened at once (a model switch).
    if (opts.keepJobs && this.deps.parkJobs) this.deps.parkJobs(this.jobs);
    else await this.jobs.closeAll();
    await this.deps.hooks?.fire("SessionEnd", { reason: "close" }).catch(() => {});
    this.file.close();
    if (this.tmp) rmSync(this.tmp, { recursive: true, force: true });
    this.deps.onClose?.();
  }
}

/** How steering guidance reaches the model: marked as said mid-turn. */
export const steerMessage = (text: string): string => `[The user added this while you were working; take it into account from now on.]\n\n${text}`;

