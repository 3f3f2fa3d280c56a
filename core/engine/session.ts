/**
 * One live session: the agent loop, approvals, checkpoints and the log.
 * Everything that happens is committed to the session log first and then
 * emitted, so a crash at any point leaves a log that resumes cleanly.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReasonixError, errorMessage } from "../errors.ts";
import { ProviderError } from "../providers/errors.ts";
import { chatWithRetry, type RetryHooks, type RetryPolicy } from "../providers/retry.ts";
import type { ChatRequest, Provider, StreamHandlers, ToolCall, ToolSchema } from "../providers/types.ts";
import { EFFORTS, isEffort } from "../providers/reasoning.ts";
import { priceOf, savedBy, type Prices } from "../providers/pricing.ts";
import { checkVision, type ImageInput } from "../providers/images.ts";
import { imageReferences } from "./images.ts";
import { captureFile } from "../sessions/checkpoints.ts";
import { traceStart, traceStep } from "../trace.ts";
import { rewindSession } from "../sessions/rewind.ts";
import type { RewindMode, SessionRecord } from "../sessions/records.ts";
import { applyRecord, danglingToolCalls, type SessionState } from "../sessions/replay.ts";
import type { SessionFile } from "../sessions/store.ts";
import type { PathPolicy } from "../policy/paths.ts";
import { gitGuardAtStart } from "../sandbox/git-guard.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.ts";
import type { ToolSource } from "../tools/sources.ts";
import { callSummary } from "../tools/summary.ts";
import type { SessionHooks } from "../hooks/index.ts";
import { planCompaction, estimateTokens } from "./compaction.ts";
import { isWriter, landedFileDiffs, proposedFileDiffs, snapshot, type FileDiff } from "./file-diff.ts";
import { continueRequest, cutOffCalls, cutToolCallResult, endMessage } from "./finish.ts";
import type { PermissionGate } from "./permission-gate.ts";
import { GoalDriver } from "../goal/driver.ts";
import type { GuardianHook, ReviewRequest } from "../guardian/guardian.ts";
import type { Planner, PlannerHost } from "../planner/planner.ts";
import { COMPACTION_REQUEST, wrapSummary } from "./prompt.ts";
import { ElicitationDesk } from "./elicitation.ts";
import type { ApprovalDecision, ElicitAnswer, EngineEvent, EngineEventListener, EngineSession, PermissionMode, RewindResult, SteerDisposition, SubmitOptions, TurnEndReason, Usage, UsageRole } from "./types.ts";

/** Tokens another model (planner, Guardian) spent for this session, at that model's prices. */
type SecondSpend = { role: UsageRole; prices?: Prices };

export interface SessionDeps {
  workspace: string;
  provider: Provider;
  /** Display name of the model choice (provider entry). */
  modelName: string;
  system: string;
  tools: ToolDefinition[];
  /** Tools from outside (MCP): synced at turn boundaries only (see syncTools). */
  toolSource?: ToolSource;
  gate: PermissionGate;
  headless: boolean;
  maxSteps: number;
  compactRatio: number;
  config: Record<string, unknown>;
  extraWriteRoots: string[];
  pathPolicy?: PathPolicy;
  retry: RetryPolicy;
  /** Per-million-token prices of the model, for cost receipts. */
  prices?: Prices;
  /** Called when the session closes (engine bookkeeping). */
  onClose?(): void;
  /** The typed message → the user message the model receives (commands, @references, UserPromptSubmit hooks). */
  prepare?(prompt: string, signal: AbortSignal): Promise<string>;
  hooks?: SessionHooks;
  /** The `model:` of the command that started the turn just prepared (see core/commands/turn-model.ts). */
  turnModel?(): import("../commands/turn-model.ts").TurnModel | undefined;
  /** A provider for another configured entry (a command's `model:` for one turn). */
  providerFor?(name: string): { provider: Provider; prices?: Prices };
  /** The Guardian risk gate (core/guardian): reviews risky calls the rules would let run unasked. */
  guardian?: GuardianHook;
  /** The two-model planner (core/planner): runs on explicit plan requests, before the executor. */
  planner?: Planner;
}


const now = () => new Date().toISOString();

export { priceOf, type Prices } from "../providers/pricing.ts";

const parseArgs = (text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } => {
  try {
    const v = JSON.parse(text || "{}");
    if (v && typeof v === "object" && !Array.isArray(v)) return { ok: true, value: v };
    return { ok: false, error: "tool arguments must be a JSON object" };
  } catch (e) {
    return { ok: false, error: `tool arguments are not valid JSON: ${errorMessage(e)}` };
  }
};

export class LiveSession implements EngineSession {
  private readonly listeners = new Set<EngineEventListener>();
  private readonly approvals = new Map<string, (d: ApprovalDecision) => void>();
  /** approval_request events still unanswered, for history(). */
  private readonly pending = new Map<string, EngineEvent>();
  /** Text and reasoning streamed by the model step in flight (not committed yet). */
  private partial = { text: "", reasoning: "" };
  /** What a cancelled step had streamed: kept as the turn's (cut short) answer. */
  private cutShort = "";
  private readonly readStamps = new Map<string, string>();
  private schemas: ToolSchema[] = [];
  private toolMap = new Map<string, ToolDefinition>();
  /** Version of the tool source's snapshot in use (-1: none yet). */
  private toolVersion = -1;
  private abort: AbortController | null = null;
  private running: Promise<TurnEndReason> | null = null;
  private tmp: string | null = null;
  private closed = false;
  readonly state: SessionState;

  constructor(
    private readonly file: SessionFile,
    private readonly deps: SessionDeps,
  ) {
    this.state = file.state();
    this.desk = new ElicitationDesk({ headless: deps.headless, emit: (e) => this.emit(e), warn: (code, message) => this.notice(code, message) });
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
      spent: (usage) => this.recordUsage(this.state.openTurn ?? Math.max(0, this.state.nextTurn - 1), usage, { role: "goal_evaluator", prices: this.deps.prices ?? this.deps.provider.prices }),
    });
  }
  readonly goal: GoalDriver;
  /** MCP servers' input requests (elicitation), answered like approvals. */
  private readonly desk: ElicitationDesk;

  offerElicitation(on: boolean): void {
    this.desk.offered = on;
  }

  answerElicitation(id: string, answer: ElicitAnswer): void {
    this.desk.answer(id, answer);
  }

  /** A notice for the user (a hook failure): recorded and shown, never sent to the model. */
  private notice(code: string, message: string): void {
    this.commit({ t: "warning", code, message });
    this.emit({ type: "warning", code, message });
  }

  get id() { return this.file.id; }
  get workspace() { return this.deps.workspace; }
  get busy() { return this.abort !== null; }
  get model() { return this.deps.modelName; }

  subscribe(listener: EngineEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  history(): EngineEvent[] {
    const h = [...this.state.history];
    if (!this.abort) return h;
    // A turn is running: what a front end that just (re)connected must also see
    // to catch up — the step streaming now and the approvals waiting for an answer.
    if (this.partial.reasoning) h.push({ type: "reasoning_delta", text: this.partial.reasoning });
    if (this.partial.text) h.push({ type: "text_delta", text: this.partial.text });
    h.push(...this.pending.values(), ...this.desk.pending());
    return h;
  }

  /** Turns that can be rewound to. */
  turns(): { turn: number; prompt: string }[] {
    return this.state.turns.map((t) => ({ turn: t.turn, prompt: t.prompt }));
  }

  private emit(e: EngineEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A broken listener must not break the loop.
      }
    }
  }

  private commit(r: SessionRecord): void {
    this.file.append(r);
    applyRecord(this.state, this.file.records, this.file.records.length - 1);
  }

  /** Close what a crash left open: unanswered tool calls and an unfinished turn. */
  private repair(): void {
    const turn = this.state.openTurn ?? this.state.nextTurn - 1;
    for (const c of danglingToolCalls(this.state.messages)) {
      this.commit({ t: "msg", turn, msg: { role: "tool", callId: c.id, name: c.name, content: "error: the session stopped before this tool call finished; its effect is unknown", isError: true } });
    }
    if (this.state.openTurn !== undefined) {
      this.commit({ t: "turn_end", turn: this.state.openTurn, reason: "error", error: "interrupted: the process stopped during this turn", at: now() });
    }
  }

  private useTools(snap?: { version: number; tools: ToolDefinition[] }): void {
    const extra = snap?.tools.filter((t) => !this.deps.tools.some((b) => b.name === t.name)) ?? [];
    const all = [...this.deps.tools, ...extra].sort((a, b) => a.name.localeCompare(b.name));
    this.schemas = all.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    this.toolMap = new Map(all.map((t) => [t.name, t]));
    if (snap) this.toolVersion = snap.version;
  }

  /**
   * Before a turn's first model step: wait (briefly, bounded by the source)
   * for outside tools still starting, then take their list if it changed.
   * Changes never apply mid-turn, so the cached prefix breaks at most once
   * per change, at the next turn.
   */
  private async syncTools(signal: AbortSignal): Promise<void> {
    const src = this.deps.toolSource;
    if (!src) return;
    await src.settle(signal);
    const snap = src.snapshot();
    if (snap.version !== this.toolVersion) this.useTools(snap);
  }

  private tmpDir(): string {
    this.tmp ??= mkdtempSync(join(tmpdir(), `reasonix-${this.file.id}-`));
    return this.tmp;
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
    if (typeof content === "string") this.commit({ t: "msg", turn, msg: { role: "user", content, ...(images.length ? { images } : {}) } });
    let reason: TurnEndReason = "done";
    let error: string | undefined;
    let rollback = false;
    this.endError = undefined;
    this.cutShort = "";
    try {
      if (typeof content !== "string") throw content.failed;
      // An explicit plan request goes to the planner first (never in Plan Mode, the executor's own workflow).
      const planned = this.deps.planner && this.deps.gate.mode !== "plan" ? await this.deps.planner.beforeTurn(this.plannerHost(turn, ac.signal), prompt) : undefined;
      reason = planned ? planned.end : await this.loop(turn, ac.signal);
      error = planned ? planned.error : this.endError;
      rollback = !!planned?.rollback;
    } catch (e) {
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
        this.abort = null;
        this.turnProvider = undefined;
        for (const resolve of this.approvals.values()) resolve("deny");
        this.approvals.clear();
        this.pending.clear();
        this.partial = { text: "", reasoning: "" };
      }
    }
    this.emit({ type: "turn_end", turn, reason, ...(error ? { error } : {}) });
    await this.deps.hooks?.fire("Stop", { reason, stop_hook_active: false });
    return reason;
  }

  private async loop(turn: number, signal: AbortSignal): Promise<TurnEndReason> {
    const checkpointed = new Set<string>();
    let lastPrompt: { tokens: number; messages: number } | undefined;
    let overflowCompacted = false;
    let continued = false;
    if (this.deps.toolSource) await this.syncTools(signal);
    for (let step = 1; ; step++) {
      if (signal.aborted) return "cancelled";
      this.takeSteers(turn);
      lastPrompt = (await this.maybeCompact(turn, signal, lastPrompt)).last;
      const req: ChatRequest = { system: this.deps.system, tools: this.schemas, messages: this.state.messages, ...(this.effort ? { reasoningEffort: this.effort } : {}) };
      const sentCount = req.messages.length;
      let result;
      try {
        result = await chatWithRetry(this.provider, req, this.streamHandlers(), signal, this.deps.retry, this.retryHooks());
      } catch (e) {
        // The provider says the prompt is too long (context_window unset or
        // too high): compact once and try the same step again.
        if (overflowCompacted || !isContextOverflow(e)) throw e;
        overflowCompacted = true;
        if (!(await this.maybeCompact(turn, signal, undefined, true)).compacted) throw e;
        lastPrompt = undefined;
        step--;
        continue;
      }
      this.recordUsage(turn, result.usage);
      lastPrompt = { tokens: result.usage.inputTokens + result.usage.outputTokens, messages: sentCount + 1 };
      const msg = result.message;
      this.partial = { text: "", reasoning: "" };
      this.commit({ t: "msg", turn, msg });
      this.emit({ type: "assistant", text: msg.content, ...(msg.reasoning ? { reasoning: msg.reasoning } : {}) });
      const calls = msg.toolCalls ?? [];
      const fr = result.finishReason;
      if (fr === "content_filter" || fr === "refusal") return this.ending(fr, result.outputLimit);
      if (calls.length === 0) {
        if (fr === "length") {
          // One continuation round per turn, and only for cut-off text.
          if (continued || !msg.content) return this.ending("length", result.outputLimit);
          continued = true;
          this.commit({ t: "msg", turn, msg: { role: "user", content: continueRequest(result.outputLimit) } });
          this.emit({ type: "continuation", reason: "length", ...(result.outputLimit ? { outputLimit: result.outputLimit } : {}) });
          continue;
        }
        // Guidance that arrived during this last step still belongs to this turn.
        if (this.steers.length > 0 && step < this.deps.maxSteps) continue;
        if (!msg.content.trim() && !continued) return this.ending("empty");
        return "done";
      }
      const denied = await this.runRound(turn, calls, signal, checkpointed, cutOffCalls(result), result.outputLimit);
      if (signal.aborted) return "cancelled";
      if (denied) return "denied";
      if (step >= this.deps.maxSteps) return "max_steps";
    }
  }

  /** Deltas go out live; a failed attempt that streamed any is announced as discarded. */
  private streamed = false;
  private streamHandlers(): StreamHandlers {
    return {
      onText: (text) => {
        this.streamed = true;
        this.partial.text += text;
        this.emit({ type: "text_delta", text });
      },
      onReasoning: (text) => {
        this.streamed = true;
        this.partial.reasoning += text;
        this.emit({ type: "reasoning_delta", text });
      },
      onWaiting: (n) => this.emit({ type: "waiting", ...n }),
    };
  }

  private retryHooks(): RetryHooks {
    this.streamed = false;
    this.partial = { text: "", reasoning: "" };
    return {
      onAttemptFailed: (n) => {
        if (this.abort?.signal.aborted) this.cutShort = this.partial.text;
        this.partial = { text: "", reasoning: "" };
        if (!this.streamed) return;
        this.streamed = false;
        this.emit({ type: "attempt_discarded", attempt: n.attempt, reason: n.reason });
      },
      onRetry: (n) => this.emit({ type: "retry", attempt: n.attempt, delayMs: n.delayMs, reason: n.reason }),
    };
  }

  /** End the turn on a finish reason that is not a usable answer; turn_end carries why. */
  private ending(reason: TurnEndReason, limit?: number): TurnEndReason {
    this.endError = endMessage(reason, this.provider.name, limit);
    return reason;
  }
  private endError: string | undefined;

  /** `by`: a call of the planner's or the Guardian's model, priced at its own prices. */
  private recordUsage(turn: number, usage: Usage, by?: SecondSpend): void {
    // The entry's `prices` (engine) first, else the provider's rate card.
    const p = by ? by.prices : this.turnProvider ? (this.turnProvider.prices ?? this.turnProvider.provider.prices) : (this.deps.prices ?? this.deps.provider.prices);
    const cost = p ? priceOf(usage, p) : undefined;
    // Negative when writing the cache cost more than it has saved yet.
    const saved = p && (usage.cacheHitTokens > 0 || (usage.cacheWriteTokens ?? 0) > 0) ? savedBy(usage, p) : 0;
    this.commit({ t: "usage", turn, usage, ...(p ? { cost, currency: p.currency, ...(saved !== 0 ? { saved } : {}) } : {}), ...(by ? { role: by.role } : {}) });
    this.emit(this.state.history[this.state.history.length - 1]!);
  }

  /**
   * Run one round of tool calls; reads in a row run in parallel, writers one
   * by one. Results are committed in call order as soon as they are known, so
   * a crash mid-round loses only the calls still running.
   */
  private async runRound(turn: number, calls: ToolCall[], signal: AbortSignal, checkpointed: Set<string>, cut = new Set<string>(), limit?: number): Promise<boolean> {
    const results: (ToolResult | undefined)[] = calls.map(() => undefined);
    /** What each writer call changed on disk, for its tool_result. */
    const diffs = new Map<string, FileDiff[]>();
    let next = 0;
    const settle = (i: number, r: ToolResult) => {
      results[i] = r;
      for (; next < calls.length && results[next]; next++) {
        const call = calls[next]!;
        const res = results[next]!;
        const receipt = res.receipt ? { receipt: res.receipt } : {};
        const landed = diffs.get(call.id);
        const diff = landed?.length ? { diff: landed } : {};
        const t0 = traceStart();
        this.commit({ t: "msg", turn, msg: { role: "tool", callId: call.id, name: call.name, content: res.output, ...(res.ok ? {} : { isError: true }) }, ...receipt, ...diff });
        traceStep("tool:log", t0, { tool: call.name });
        this.emit({ type: "tool_result", callId: call.id, name: call.name, ok: res.ok, output: res.output, ...receipt, ...diff });
      }
    };
    let denied = false;
    let batch: Promise<void>[] = [];
    const flush = async () => {
      await Promise.all(batch);
      batch = [];
    };
    const ctx = this.toolContext(turn, signal, checkpointed);
    for (const call of calls) {
      const args = parseArgs(call.arguments);
      this.emit({ type: "tool_call", callId: call.id, name: call.name, input: args.ok ? args.value : call.arguments });
    }
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      const tool = this.toolMap.get(call.name);
      const args = parseArgs(call.arguments);
      if (tool && tool.kind !== "read" && !tool.parallel) await flush();
      if (denied || signal.aborted) {
        settle(i, { ok: false, output: denied ? "skipped: an earlier call in this round was refused" : "cancelled" });
        continue;
      }
      if (cut.has(call.id)) {
        settle(i, { ok: false, output: cutToolCallResult(limit) });
        continue;
      }
      if (!tool) {
        settle(i, { ok: false, output: `unknown tool "${call.name}"; available: ${[...this.toolMap.keys()].join(", ")}` });
        continue;
      }
      if (!args.ok) {
        settle(i, { ok: false, output: args.error });
        continue;
      }
      const hook = await this.deps.hooks?.preToolUse(call.name, args.value, signal);
      if (hook?.block) {
        // The reason goes to the model; the round goes on.
        settle(i, { ok: false, output: `blocked by a PreToolUse hook: ${hook.block}` });
        continue;
      }
      const t0 = traceStart();
      const allowed = await this.authorize(call, tool, args.value, signal, !!hook?.approve);
      traceStep("tool:permission", t0, { tool: call.name });
      if (typeof allowed === "object") {
        // Refused by the Guardian: the reason goes to the model, the round goes on.
        settle(i, { ok: false, output: allowed.refused });
        continue;
      }
      if (allowed !== true) {
        denied = true;
        settle(i, { ok: false, output: allowed });
        continue;
      }
      const before = isWriter(tool.name) ? snapshot(tool.name, args.value, this.deps.workspace) : undefined;
      const progress = (p: { progress: number; total?: number; message?: string }) => this.emit({ type: "tool_progress", callId: call.id, ...p });
      const t1 = traceStart();
      const run = this.execute(tool, args.value, { ...ctx, callId: call.id, emitProgress: progress }).then((r) => {
        traceStep("tool:run", t1, { tool: call.name });
        if (before && r.ok) {
          try {
            diffs.set(call.id, landedFileDiffs(tool.name, args.value, this.deps.workspace, before));
          } catch {
            // A diff is a courtesy to the front ends; never fail the call over it.
          }
        }
        settle(i, r);
      });
      if (tool.kind === "read" || tool.parallel) batch.push(run);
      else await run;
    }
    await flush();
    return denied;
  }

  private async execute(tool: ToolDefinition, input: unknown, ctx: ToolContext): Promise<ToolResult> {
    let r: ToolResult;
    try {
      r = await tool.run(input, ctx);
    } catch (e) {
      if (ctx.signal.aborted) return { ok: false, output: "cancelled" };
      r = { ok: false, output: `error: ${errorMessage(e)}` };
    }
    return this.deps.hooks && !ctx.signal.aborted ? this.deps.hooks.postToolUse(tool.name, input, r, ctx.signal) : r;
  }

  /** true when the call may run, else the refusal text the model sees. */
  private async authorize(call: ToolCall, tool: ToolDefinition, input: unknown, signal: AbortSignal, hookApproved = false): Promise<true | string | { refused: string }> {
    let d = this.deps.gate.check(tool, input);
    if (d.action === "allow" && !this.deps.guardian) return true;
    // A PreToolUse hook's approval stands in for the prompt (also in a headless run), never for a deny rule or mode.
    if (hookApproved && (d.action === "ask" || d.headlessAsk)) return true;
    let summary = callSummary(tool, input);
    let onApproved: (() => void) | undefined;
    if (d.action === "allow") {
      // Deny rules and mode blocks came first; the Guardian reviews only what would run unasked.
      const g = await this.deps.guardian!.review({ tool, input, summary, messages: this.state.messages, signal, warn: (c, m) => this.notice(c, m), ...this.guardianRecords(call.id, tool.name, summary) });
      if (g.action === "allow") return true;
      if (g.action === "refuse") return { refused: g.reason };
      if (g.action === "deny") return g.reason;
      d = { ...d, action: "ask" };
      summary = `${summary} — ${g.note}`;
      onApproved = g.onApproved;
    }
    if (d.action === "deny") return `permission denied: ${d.reason}`;
    if (this.deps.headless) {
      return `permission denied: ${summary} needs approval (${d.reason}) and this headless run cannot ask. Allow it with --auto (-y, --permission-mode auto)${tool.kind === "write" ? ", --add-dir for paths outside the workspace" : ""}, or add "${d.suggestedRule}" to [permissions] allow`;
    }
    const decision = await new Promise<ApprovalDecision>((resolve) => {
      this.approvals.set(call.id, resolve);
      const onAbort = () => resolve("deny");
      signal.addEventListener("abort", onAbort, { once: true });
      const diff = proposedDiff(tool.name, input, this.deps.workspace);
      const persistTo = this.deps.gate.persistTargets?.(d.suggestedRule);
      const request: EngineEvent = { type: "approval_request", callId: call.id, name: tool.name, input, summary, suggestedRule: d.suggestedRule, ...(diff.length ? { diff } : {}), ...(persistTo ? { persistTo } : {}) };
      this.pending.set(call.id, request);
      this.emit(request);
    });
    this.approvals.delete(call.id);
    this.pending.delete(call.id);
    this.emit({ type: "approval_resolved", callId: call.id, decision });
    if (decision === "deny") return signal.aborted ? "cancelled" : `permission denied: the user refused ${summary}`;
    onApproved?.();
    if (decision === "session" || decision === "persist" || decision === "persist_project") this.deps.gate.grant(d.suggestedRule, decision);
    return true;
  }

  /**
   * Surface an approval asked elsewhere (a subagent's) as this session's own:
   * front ends see the request and answer it with approve(); `answer` gets the
   * decision. Returns a function that withdraws the request unanswered.
   */
  relayApproval(request: Extract<EngineEvent, { type: "approval_request" }>, answer: (d: ApprovalDecision) => void): () => void {
    const id = request.callId;
    const finish = (d: ApprovalDecision, tell: boolean) => {
      if (!this.approvals.has(id)) return;
      this.approvals.delete(id);
      this.pending.delete(id);
      this.emit({ type: "approval_resolved", callId: id, decision: d });
      if (tell) answer(d);
    };
    this.approvals.set(id, (d) => finish(d, true));
    this.pending.set(id, request);
    this.emit(request);
    return () => finish("deny", false);
  }

  /** A subagent's progress, shown live by the front ends (not recorded: the child's own log holds its work). */
  reportSubagent(p: import("../agents/events.ts").SubagentProgress): void {
    this.emit({ type: "subagent", ...p });
  }

  /** The Guardian's spend and verdicts go to the log (usage with role guardian, guardian records). */
  private guardianRecords(callId: string, name: string, summary: string): Pick<ReviewRequest, "spent" | "record"> {
    const turn = this.state.openTurn ?? Math.max(0, this.state.nextTurn - 1);
    return {
      spent: (usage, prices) => this.recordUsage(turn, usage, { role: "guardian", prices }),
      record: (v) => {
        const review = { callId, name, summary, ...v };
        this.commit({ t: "guardian", turn, at: now(), ...review });
        this.emit({ type: "guardian", ...review });
      },
    };
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
        return d.action === "allow" ? this.execute(tool, input, ctx) : { ok: false, output: `refused: ${d.reason}` };
      },
      recordPlan: (route, plan, text) => {
        this.commit({ t: "plan", turn, route, plan, text, at: now() });
        this.emit({ type: "plan", route, plan, text });
      },
      addMessage: (msg) => {
        this.commit({ t: "msg", turn, msg });
        if (msg.role === "assistant") this.emit({ type: "assistant", text: msg.content });
      },
      ask: async (request) => {
        const decision = await new Promise<ApprovalDecision>((resolve) => {
          this.approvals.set(request.callId, resolve);
          signal.addEventListener("abort", () => resolve("deny"), { once: true });
          this.pending.set(request.callId, request);
          this.emit(request);
        });
        this.approvals.delete(request.callId);
        this.pending.delete(request.callId);
        this.emit({ type: "approval_resolved", callId: request.callId, decision });
        return decision;
      },
      warn: (code, message) => this.notice(code, message),
      spent: (usage, prices) => this.recordUsage(turn, usage, { role: "planner", prices }),
    };
  }

  approve(callId: string, decision: ApprovalDecision): void {
    const resolve = this.approvals.get(callId);
    if (!resolve) throw new ReasonixError("no_pending_approval", `no pending approval for call ${callId}`);
    resolve(decision);
  }

  setPermissionMode(mode: PermissionMode): void {
    this.deps.gate.setMode?.(mode);
  }

  private effort: string | undefined;
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
    this.steers.push(steerMessage(text));
    return this.abort && !this.abort.signal.aborted ? "steer_accepted" : "queued_followup";
  }
  /** User-role messages waiting for the next model step, worded as sent (steering, goal-driver notes). */
  private steers: string[] = [];

  /**
   * A note from the host, not the user (the goal driver's strategy redirect):
   * sent as worded, as a user-role message at the next model step, like
   * steering but without steering's "the user added this" label.
   */
  addDriverNote(content: string): void {
    if (this.closed) throw new ReasonixError("session_closed", "session is closed");
    this.steers.push(content);
  }

  /** The provider of the running turn: the session's, or the one a command's `model:` chose for this turn. */
  private turnProvider: { provider: Provider; prices?: Prices } | undefined;
  private get provider(): Provider {
    return this.turnProvider?.provider ?? this.deps.provider;
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

  /** Commit pending guidance as user messages; true when there was some. */
  private takeSteers(turn: number): boolean {
    if (this.steers.length === 0) return false;
    for (const content of this.steers.splice(0)) this.commit({ t: "msg", turn, msg: { role: "user", content } });
    return true;
  }

  private toolContext(turn: number, signal: AbortSignal, checkpointed: Set<string>): ToolContext {
    return {
      workspace: this.deps.workspace,
      sessionId: this.id,
      tmpDir: this.tmpDir(),
      signal,
      beforeWrite: async (absPath: string) => captureFile(this.file, turn, absPath, checkpointed),
      readStamps: this.readStamps,
      config: this.deps.config,
      extraWriteRoots: this.deps.extraWriteRoots,
      pathPolicy: this.deps.pathPolicy,
      goal: this.goal,
      elicit: (ask) => this.desk.ask(ask, signal),
      emitTodo: (items) => {
        this.commit({ t: "todo", items });
        this.emit({ type: "todo", items });
      },
    };
  }

  /**
   * Past compact_ratio of the context window, ask the model for a summary of
   * the old middle and keep the recent tail verbatim. Uses the same system
   * prompt and tools, so even the summary request reuses the cached prefix.
   */
  private async maybeCompact(
    turn: number,
    signal: AbortSignal,
    last?: { tokens: number; messages: number },
    force = false,
    trigger: "auto" | "overflow" | "manual" = force ? "overflow" : "auto",
  ): Promise<{ last?: { tokens: number; messages: number }; compacted: boolean; removed?: number; summaryChars?: number }> {
    const unchanged = { last, compacted: false };
    const msgs = this.state.messages;
    // The provider's own count of the last prompt is best; our estimate guards
    // against endpoints that report no (or too little) usage.
    const local = estimateTokens(msgs) + Math.ceil((this.deps.system.length + JSON.stringify(this.schemas).length) / 4);
    const estimate = Math.max(local, last ? last.tokens + estimateTokens(msgs.slice(last.messages)) : 0);
    const window = this.provider.contextWindow > 0 ? this.provider.contextWindow : force ? estimate : 0;
    if (window <= 0) return unchanged;
    if (!force && estimate < this.deps.compactRatio * window) return unchanged;
    // Asked for (/compact): the tail is a fifth of the conversation itself, so even a short one compacts.
    const tail = trigger === "manual" ? estimateTokens(msgs.slice(this.state.preamble)) : Math.min(window, estimate);
    const plan = planCompaction(msgs, this.state.preamble, Math.floor(tail * 0.2));
    if (!plan) return unchanged;
    await this.deps.hooks?.fire("PreCompact", { trigger }, signal);
    const req: ChatRequest = {
      system: this.deps.system,
      tools: this.schemas,
      messages: [...msgs.slice(0, plan.keepFrom), { role: "user", content: COMPACTION_REQUEST }],
    };
    const res = await chatWithRetry(this.provider, req, { onWaiting: (n) => this.emit({ type: "waiting", ...n }) }, signal, this.deps.retry, {
      onRetry: (n) => this.emit({ type: "retry", attempt: n.attempt, delayMs: n.delayMs, reason: n.reason }),
    });
    this.recordUsage(turn, res.usage);
    const text = res.message.content.trim();
    if (!text) return unchanged;
    const summary = wrapSummary(text);
    this.commit({ t: "compaction", turn, headCount: this.state.preamble, keepFrom: plan.keepFrom, summary });
    const removed = plan.keepFrom - this.state.preamble;
    this.emit({ type: "compaction", removedMessages: removed, summaryChars: summary.length });
    return { last: undefined, compacted: true, removed, summaryChars: summary.length };
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
      const r = await this.maybeCompact(Math.max(0, this.state.nextTurn - 1), ac.signal, undefined, true, "manual");
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.cancel();
    if (this.running) await this.running;
    this.closed = true;
    await this.deps.hooks?.fire("SessionEnd", { reason: "close" }).catch(() => {});
    this.file.close();
    if (this.tmp) rmSync(this.tmp, { recursive: true, force: true });
    this.deps.onClose?.();
  }
}

/** How steering guidance reaches the model: marked as said mid-turn. */
export const steerMessage = (text: string): string => `[The user added this while you were working; take it into account from now on.]\n\n${text}`;

/** A provider's "prompt too long" refusal, across vendors' wordings. */
export function isContextOverflow(e: unknown): boolean {
  if (!(e instanceof ProviderError) || e.kind !== "bad_request") return false;
  return /context[ _-]?(length|window)|too long|too many tokens|maximum.{0,40}tokens|prompt is too long|exceeds? the (context|model)/i.test(e.message);
}

function proposedDiff(tool: string, input: unknown, workspace: string): FileDiff[] {
  try {
    return proposedFileDiffs(tool, input, workspace);
  } catch {
    return [];
  }
}
