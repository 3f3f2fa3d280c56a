/**
 * What every part of a live session shares (see SessionCore below).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type RetryPolicy } from "../providers/retry.ts";
import type { Provider, ToolSchema } from "../providers/types.ts";
import { type Prices } from "../providers/pricing.ts";
import { captureFile } from "../sessions/checkpoints.ts";
import type { SessionRecord } from "../sessions/records.ts";
import { applyRecord, type SessionState } from "../sessions/replay.ts";
import type { SessionFile } from "../sessions/store.ts";
import type { PathPolicy } from "../policy/paths.ts";
import type { ToolContext, ToolDefinition } from "../tools/types.ts";
import type { ToolSource } from "../tools/sources.ts";
import { JobTable } from "../tools/jobs.ts";
import type { SessionHooks } from "../hooks/index.ts";
import type { PermissionGate } from "./permission-gate.ts";
import type { GoalDriver } from "../goal/driver.ts";
import type { GuardianHook } from "../guardian/guardian.ts";
import type { Planner } from "../planner/planner.ts";
import { ElicitationDesk } from "./elicitation.ts";
import { ApprovalDesk } from "./approvals.ts";
import type { EngineEvent, EngineEventListener, Question, QuestionAnswer, TurnEndReason } from "./types.ts";

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
  /** Background jobs handed over by the session this one reopens (a model switch). */
  jobs?: JobTable;
  /** Keep the jobs for the session that reopens this conversation (close with keepJobs). */
  parkJobs?(jobs: JobTable): void;
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

export const now = () => new Date().toISOString();

/**
 * The state and plumbing the jobs of a live session share: the log and its
 * replayed state, events, the tool block, steering, the turn's provider.
 * LiveSession (session.ts) is the session; the turn's steps (turn-loop.ts),
 * tool rounds (tool-round.ts), compaction (session-compact.ts) and usage
 * records (usage.ts) work on it through this class. Its members are for
 * those modules; front ends use the EngineSession interface.
 */
export abstract class SessionCore {
  readonly listeners = new Set<EngineEventListener>();
  /** Approval requests waiting for the user's answer. */
  readonly approvals = new ApprovalDesk((e) => this.emit(e));
  /** Text and reasoning streamed by the model step in flight (not committed yet). */
  partial = { text: "", reasoning: "" };
  /** What a cancelled step had streamed: kept as the turn's (cut short) answer. */
  cutShort = "";
  readonly readStamps = new Map<string, string>();
  schemas: ToolSchema[] = [];
  toolMap = new Map<string, ToolDefinition>();
  /** Version of the tool source's snapshot in use (-1: none yet). */
  toolVersion = -1;
  abort: AbortController | null = null;
  running: Promise<TurnEndReason> | null = null;
  tmp: string | null = null;
  closed = false;
  readonly state: SessionState;
  /** MCP servers' input requests (elicitation), answered like approvals. */
  readonly desk: ElicitationDesk;
  /** Deltas go out live; a failed attempt that streamed any is announced as discarded. */
  streamed = false;
  endError: string | undefined;
  /** The question the model asked where no one can answer (headless): the turn ends as needs_user. */
  needsUser: string | undefined;
  effort: string | undefined;
  /** User-role messages waiting for the next model step, worded as sent (steering, goal-driver notes); `text`: what the user steered. */
  steers: { content: string; text?: string }[] = [];
  /** The provider of the running turn: the session's, or the one a command's `model:` chose for this turn. */
  turnProvider: { provider: Provider; prices?: Prices } | undefined;
  /** Background shell jobs (bash run_in_background): they outlive turns and end with the session. */
  readonly jobs: JobTable;
  /** Set by LiveSession's constructor: goal mode's driver (core/goal). */
  abstract readonly goal: GoalDriver;

  constructor(
    readonly file: SessionFile,
    readonly deps: SessionDeps,
  ) {
    this.state = file.state();
    // Logs in the session's state directory: outside the sandbox's view, removed when the session closes.
    this.jobs = deps.jobs ?? new JobTable(join(dirname(file.blobDir), "jobs"));
    this.desk = new ElicitationDesk({ headless: deps.headless, emit: (e) => this.emit(e), warn: (code, message) => this.notice(code, message) });
  }

  get id() { return this.file.id; }
  get workspace() { return this.deps.workspace; }
  get busy() { return this.abort !== null; }
  /**
   * The running turn made its last check for guidance (turn-loop.ts): what is
   * steered from now on waits for the next turn. Set in the same step as that
   * check, so no guidance can slip between the check and the turn's end.
   */
  steeringClosed = true;
  get takesSteering() { return this.abort !== null && !this.abort.signal.aborted && !this.steeringClosed; }
  get model() { return this.deps.modelName; }

  subscribe(listener: EngineEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A notice for the user (a hook failure): recorded and shown, never sent to the model. */
  notice(code: string, message: string): void {
    this.commit({ t: "warning", code, message });
    this.emit({ type: "warning", code, message });
  }

  emit(e: EngineEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A broken listener must not break the loop.
      }
    }
  }

  commit(r: SessionRecord): void {
    this.file.append(r);
    applyRecord(this.state, this.file.records, this.file.records.length - 1);
  }

  useTools(snap?: { version: number; tools: ToolDefinition[] }): void {
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
  async syncTools(signal: AbortSignal): Promise<void> {
    const src = this.deps.toolSource;
    if (!src) return;
    await src.settle(signal);
    for (const w of src.takeWarnings?.() ?? []) this.notice("mcp_unavailable", w);
    const snap = src.snapshot();
    if (snap.version !== this.toolVersion) this.useTools(snap);
  }

  /**
   * The model's question (the `ask` tool): waits on the approval desk in every
   * mode; headless, the turn will end as needs_user. The question is on disk
   * before anyone sees it, and its answer once given (records.ts).
   */
  async askUser(q: Question, signal: AbortSignal, turn: number): Promise<QuestionAnswer> {
    if (this.deps.headless) {
      this.needsUser ??= q.question;
      return { dismissed: true, reason: "this run cannot ask the user (headless); the run stops here" };
    }
    this.commit({ t: "question", turn, question: q, at: now() });
    await this.file.flushed();
    const answer = await this.approvals.question(q, signal);
    this.commit({ t: "question_answer", turn, callId: q.callId, answer, at: now() });
    return answer;
  }

  tmpDir(): string {
    this.tmp ??= mkdtempSync(join(tmpdir(), `reasonix-${this.file.id}-`));
    return this.tmp;
  }

  get provider(): Provider {
    return this.turnProvider?.provider ?? this.deps.provider;
  }

  /** Commit pending guidance as user messages; true when there was some. */
  takeSteers(turn: number): boolean {
    if (this.steers.length === 0) return false;
    for (const { content } of this.steers.splice(0)) this.commit({ t: "msg", turn, msg: { role: "user", content } });
    return true;
  }

  toolContext(turn: number, signal: AbortSignal, checkpointed: Set<string>): ToolContext {
    return {
      workspace: this.deps.workspace,
      sessionId: this.id,
      tmpDir: this.tmpDir(),
      signal,
      // The checkpoint is on disk before the write it allows (a power cut never leaves a change without its undo).
      beforeWrite: async (absPath: string) => {
        captureFile(this.file, turn, absPath, checkpointed);
        await this.file.flushed();
      },
      readStamps: this.readStamps,
      config: this.deps.config,
      extraWriteRoots: this.deps.extraWriteRoots,
      pathPolicy: this.deps.pathPolicy,
      goal: this.goal,
      jobs: this.jobs,
      elicit: (ask) => this.desk.ask(ask, signal),
      askUser: (q) => this.askUser(q, signal, turn),
      emitTodo: (items) => {
        this.commit({ t: "todo", items });
        this.emit({ type: "todo", items });
      },
    };
  }
}
