/**
 * Goal mode over one session: keeps submitting goal turns until the goal is
 * complete, blocked, paused or cleared.
 *
 * After every goal turn the model's update_goal report decides; without one,
 * ONE bounded evaluator call judges the turn, and an evaluator failure pauses
 * the goal (never a silent continue). Turns per slice are bounded by
 * [agent] goal_max_turns; [agent] goal_token_budget (off by default) ends a
 * slice with one summary turn and a resumable pause. Every state change is a
 * `goal` record in the session log (append-only), so a goal survives kill -9:
 * a goal found "active" when the session opens was interrupted and becomes
 * paused, ready for /goal resume.
 *
 * Planner integration: hooks registered with registerGoalStartHook
 * (core/goal/hooks.ts) run once when a goal starts, before its first turn.
 */
import type { EngineEvent, GoalChange, GoalControl, GoalView, TodoItem, TurnEndReason } from "../engine/types.ts";
import { ReasonixError, errorMessage } from "../errors.ts";
import { goalSettings, type GoalSettings } from "./config.ts";
import { evaluateTurn, type Verdict } from "./evaluator.ts";
import { runGoalStartHooks } from "./hooks.ts";
import { ProgressTracker } from "./progress.ts";
import { plural } from "../plural.ts";
import { BUDGET_SUMMARY_PROMPT, firstGoalPrompt, nextGoalPrompt, redirectMessage, unverifiedNote } from "./prompts.ts";
import type { GoalHost, GoalReport, GoalToolPort } from "./types.ts";

const now = () => new Date().toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class GoalDriver implements GoalControl, GoalToolPort {
  private view: GoalView | undefined;
  private readonly settings: GoalSettings;
  private loopRun: Promise<GoalView> | null = null;
  private readonly stopListeners = new Set<() => void>();
  private pauseAsked = false;
  private stop = new AbortController();
  /** A goal turn (or its summary turn) is running: events count toward the goal. */
  private inTurn = false;
  private reported: GoalReport | undefined;
  private todoList: TodoItem[] = [];
  private readonly tracker: ProgressTracker;
  private turnUsage = { requests: 0, tokens: 0 };
  private lastText = "";
  private lastUnverified: string | undefined;
  /** Extra text for the next goal turn's prompt (a plan note, unverified checks). */
  private note: string | undefined;

  constructor(private readonly host: GoalHost) {
    this.settings = goalSettings(host.config);
    this.view = host.saved;
    this.tracker = new ProgressTracker(this.settings.stallRounds, (n) => this.redirect(n));
    const history = host.session.history();
    let since = -1;
    for (let i = history.length - 1; i >= 0; i--) {
      const e = history[i]!;
      if (e.type === "goal" && e.change === "started") { since = i; break; }
    }
    history.forEach((e, i) => {
      if (e.type === "todo") this.todoList = e.items;
      if (since >= 0 && i > since) this.tracker.learn(e);
    });
    host.session.subscribe((e) => this.onEvent(e));
    if (this.view?.status === "active") {
      this.commit("paused", { ...this.view, status: "paused", pauseCode: "interrupted", reason: "the process stopped while the goal was running; /goal resume continues it" });
    }
  }

  get running(): boolean {
    return this.loopRun !== null;
  }

  onStopped(listener: () => void): () => void {
    this.stopListeners.add(listener);
    return () => this.stopListeners.delete(listener);
  }

  status(): GoalView | undefined {
    return this.view ? { ...this.view, signoffs: [...this.view.signoffs] } : undefined;
  }

  /** Throws at once (not as a rejection) when the goal cannot start. */
  start(objective: string): Promise<GoalView> {
    const text = objective.trim();
    if (!text) throw new ReasonixError("usage", "the goal is empty", { hint: "e.g. /goal make the test suite pass", exitCode: 2 });
    this.checkIdle();
    if (this.view && (this.view.status === "active" || this.view.status === "paused" || this.view.status === "blocked")) {
      throw new ReasonixError("goal_exists", `this session already has a ${this.view.status} goal: ${this.view.objective}`, { hint: "/goal resume continues it, /goal clear drops it" });
    }
    const s = this.settings;
    this.commit("started", { objective: text, status: "active", startedAt: now(), turns: 0, requests: 0, tokens: 0, workMs: 0, signoffs: [], tokenBudget: s.tokenBudget, budgetFrom: 0, maxTurns: s.maxTurns, turnsFrom: 0 });
    this.lastUnverified = undefined;
    return this.launch(async () => {
      const note = await runGoalStartHooks({ objective: text, session: this.host.session, signal: this.stop.signal }, (m) => this.host.warn("goal_start_hook", m));
      return firstGoalPrompt(text, note);
    });
  }

  /** Throws at once (not as a rejection) when there is nothing to resume. */
  resume(): Promise<GoalView> {
    this.checkIdle();
    const v = this.view;
    if (!v || (v.status !== "paused" && v.status !== "blocked")) {
      throw new ReasonixError("no_paused_goal", v ? `the goal is ${v.status}; only a paused or blocked goal resumes` : "this session has no goal", { hint: "start one with /goal <objective>" });
    }
    const s = this.settings;
    // A fresh slice of the budget and the turn limit; the statistics stay cumulative.
    this.commit("resumed", { ...v, status: "active", reason: undefined, pauseCode: undefined, tokenBudget: s.tokenBudget, budgetFrom: v.tokens, maxTurns: s.maxTurns, turnsFrom: v.turns });
    this.tracker.resetEpoch();
    return this.launch(async () => nextGoalPrompt(v.turns + 1, this.takeNote()));
  }

  pause(): GoalView {
    const v = this.view;
    if (!v || v.status !== "active") throw new ReasonixError("no_active_goal", v ? `the goal is ${v.status}, not running` : "this session has no goal");
    if (this.running) {
      this.pauseAsked = true;
      return this.status()!;
    }
    this.commit("paused", { ...v, status: "paused", pauseCode: "user", reason: "paused by the user" });
    return this.status()!;
  }

  clear(): GoalView | undefined {
    const v = this.view;
    if (!v) return undefined;
    if (v.status !== "cleared") this.commit("cleared", { ...v, status: "cleared", reason: "cleared by the user", pauseCode: undefined });
    if (this.running) {
      this.stop.abort();
      if (this.inTurn) this.host.session.cancel();
    }
    return this.status();
  }

  // --- the tools' side (GoalToolPort) ---

  report(r: GoalReport): { ok: true; text: string } | { ok: false; error: string } {
    if (!this.view || this.view.status !== "active" || !this.inTurn) {
      return { ok: false, error: "no goal is running in this session; update_goal reports on goal turns (started with /goal <objective>)" };
    }
    if (r.status === "complete") {
      const open = this.todoList.filter((t) => t.status !== "completed");
      if (open.length > 0) {
        return { ok: false, error: `the todo list still has ${plural(open.length, "open step")}: ${open.map((t) => `"${t.content}"`).join(", ")}; sign them off with complete_step (or update the list with todo_write) before reporting complete` };
      }
    }
    this.reported = r;
    return { ok: true, text: `goal status "${r.status}" recorded; the host acts on it when this turn ends` };
  }

  todos(): TodoItem[] {
    return this.todoList;
  }

  signedOff(step: string, evidence: string): void {
    if (!this.view || this.view.status !== "active") return;
    this.commit("signoff", { ...this.view, signoffs: [...this.view.signoffs, { step, evidence }] }, `signed off: ${step}`);
  }

  // --- the loop ---

  private checkIdle(): void {
    if (this.running) throw new ReasonixError("goal_running", "a goal is already running in this session", { hint: "/goal pause or /goal clear first" });
  }

  private launch(first: () => Promise<string>): Promise<GoalView> {
    this.pauseAsked = false;
    this.stop = new AbortController();
    const run = this.loop(first).finally(() => {
      this.loopRun = null;
      for (const l of [...this.stopListeners]) l();
    });
    this.loopRun = run;
    return run;
  }

  private active(): boolean {
    return this.view?.status === "active" && !this.stop.signal.aborted;
  }

  private async loop(first: () => Promise<string>): Promise<GoalView> {
    let prompt: string | undefined = await first();
    while (this.active()) {
      const v = this.view!;
      if (v.maxTurns > 0 && v.turns - v.turnsFrom >= v.maxTurns) {
        this.pauseWith("turn_limit", `reached [agent] goal_max_turns (${v.maxTurns} turns); /goal resume grants another ${v.maxTurns}`);
        break;
      }
      const turn = await this.goalTurn(prompt ?? nextGoalPrompt(v.turns + 1, this.takeNote()));
      prompt = undefined;
      if (!this.active()) break;
      if (turn.reason === "cancelled") {
        this.pauseWith(this.pauseAsked ? "user" : "cancelled", this.pauseAsked ? "paused by the user" : "the goal turn was cancelled; /goal resume continues");
        break;
      }
      if (turn.reason === "error" || turn.reason === "content_filter" || turn.reason === "refusal") {
        this.pauseWith("error", `the goal turn failed: ${turn.error ?? turn.reason}; /goal resume retries`);
        break;
      }
      if (turn.reason === "needs_user") {
        this.pauseWith("needs_user", `${turn.error ?? "the model asked the user a question no one can answer here"}; /goal resume continues`);
        break;
      }
      if (turn.reason === "denied") {
        this.pauseWith("denied", "a permission was refused during the goal turn; change the permission mode or rules, then /goal resume");
        break;
      }
      let verdict: Verdict & { unverified?: string[] };
      const reported = this.reported;
      if (reported) verdict = { status: reported.status, reason: reported.evidence, unverified: reported.unverified };
      else {
        try {
          verdict = await this.evaluate();
        } catch (e) {
          if (!this.active()) break;
          this.pauseWith("evaluator", `the turn ended without update_goal and the goal evaluator failed: ${errorMessage(e)}; /goal resume continues`);
          break;
        }
        if (!this.active()) break;
      }
      const base = { ...this.view!, evidence: verdict.reason, ...(verdict.unverified?.length ? { unverified: verdict.unverified } : {}) };
      if (verdict.status === "complete") {
        const unv = verdict.unverified ?? [];
        const key = JSON.stringify([...unv].sort());
        if (unv.length > 0 && key !== this.lastUnverified) {
          // Asked once to run what it could not; the same list again finishes the goal.
          this.lastUnverified = key;
          this.note = unverifiedNote(unv);
          this.commit("turn", base, "completion left checks unverified; asking once to run them");
          continue;
        }
        this.commit("complete", { ...base, status: "complete", reason: verdict.reason });
        break;
      }
      if (verdict.status === "blocked") {
        this.commit("blocked", { ...base, status: "blocked", reason: verdict.reason });
        break;
      }
      this.commit("turn", base, reported ? undefined : `evaluator: ${verdict.reason}`);
      if (this.pauseAsked) {
        this.pauseWith("user", "paused by the user");
        break;
      }
      const b = this.view!;
      if (b.tokenBudget > 0 && b.tokens - b.budgetFrom >= b.tokenBudget) {
        await this.goalTurn(BUDGET_SUMMARY_PROMPT);
        if (!this.active()) break;
        this.pauseWith("budget_spend", `the goal's token budget ([agent] goal_token_budget = ${b.tokenBudget}) is spent; /goal resume grants a fresh slice`, this.lastText || undefined);
        break;
      }
    }
    return this.status()!;
  }

  /** One goal turn; waits for a user turn in flight to end first. */
  private async goalTurn(prompt: string): Promise<{ reason: TurnEndReason; error?: string }> {
    this.reported = undefined;
    this.lastText = "";
    let reason: TurnEndReason = "error";
    let error: string | undefined;
    const started = Date.now();
    for (let attempt = 0; attempt < 20 && this.active(); attempt++) {
      while (this.host.session.busy && this.active()) await sleep(50);
      if (!this.active()) return { reason: "cancelled" };
      this.turnUsage = { requests: 0, tokens: 0 };
      this.inTurn = true;
      const off = this.host.session.subscribe((e) => {
        if (e.type === "turn_end" && e.error) error = e.error;
      });
      try {
        reason = await this.host.session.submit(prompt);
        break;
      } catch (e) {
        // A user's own turn slipped in between: wait for it and try again.
        if (e instanceof ReasonixError && e.code === "session_busy") continue;
        error = errorMessage(e);
        break;
      } finally {
        this.inTurn = false;
        off();
      }
    }
    if (this.view && this.view.status !== "cleared") {
      this.view = {
        ...this.view,
        turns: this.view.turns + 1,
        requests: this.view.requests + this.turnUsage.requests,
        tokens: this.view.tokens + this.turnUsage.tokens,
        workMs: this.view.workMs + (Date.now() - started),
      };
    }
    return { reason, ...(error ? { error } : {}) };
  }

  private async evaluate(): Promise<Verdict> {
    const v = this.view!;
    const { verdict } = await evaluateTurn(this.host.provider, { objective: v.objective, todos: this.todoList, history: this.host.session.history() }, this.settings.evaluatorTimeoutMs, this.stop.signal, (usage) => {
      // In the goal's statistics and, through the host, in the session's usage records (role goal_evaluator).
      this.view = { ...this.view!, requests: this.view!.requests + 1, tokens: this.view!.tokens + usage.inputTokens + usage.outputTokens };
      try {
        this.host.spent(usage);
      } catch {
        // The session closed under us: nothing left to record into.
      }
    });
    return verdict;
  }

  private onEvent(e: EngineEvent): void {
    if (e.type === "todo") this.todoList = e.items;
    if (!this.inTurn) return;
    if (e.type === "usage") {
      this.turnUsage.requests++;
      // `turn` is the running total of this turn.
      this.turnUsage.tokens = e.turn.inputTokens + e.turn.outputTokens;
    }
    if (e.type === "assistant" && e.text.trim()) this.lastText = e.text.trim();
    this.tracker.observe(e);
  }

  /** Stalled rounds: a goal-driver note joins the conversation at the tail (not labelled as the user's). */
  private redirect(rounds: number): void {
    if (!this.view || this.view.status !== "active") return;
    try {
      this.host.note(redirectMessage(rounds));
    } catch {
      return;
    }
    this.commit("redirect", this.view, `${rounds} rounds without progress: strategy redirect sent`);
  }

  private takeNote(): string | undefined {
    const n = this.note;
    this.note = undefined;
    return n;
  }

  private pauseWith(code: string, reason: string, message?: string): void {
    this.commit("paused", { ...this.view!, status: "paused", pauseCode: code, reason }, message);
  }

  private commit(change: GoalChange, goal: GoalView, message?: string): void {
    const clean = Object.fromEntries(Object.entries(goal).filter(([, x]) => x !== undefined)) as unknown as GoalView;
    this.view = clean;
    try {
      this.host.record(change, clean, message);
    } catch {
      // The session closed under us: the log keeps the last recorded state, which resumes as interrupted.
    }
  }
}
