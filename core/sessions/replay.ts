import type { EngineEvent, Question, RoleSpend, Usage, UsageRole } from "../engine/types.ts";
import type { Message } from "../providers/types.ts";
import type { MetaRecord, SessionRecord } from "./records.ts";

export interface TurnMark {
  turn: number;
  prompt: string;
  /** Index of the turn_start record in the log. */
  record: number;
}

/** A session rebuilt from its log. */
export interface SessionState {
  meta: MetaRecord;
  model: string;
  messages: Message[];
  /** Displayable events for front ends (reloads/resume). */
  history: EngineEvent[];
  /** Turns still in the conversation (rewound turns are gone). */
  turns: TurnMark[];
  nextTurn: number;
  total: Usage;
  /** A turn that started but never ended (the process died). */
  openTurn?: number;
  updatedAt?: string;
  /** Usage of the latest turn so far. */
  turnUsage: Usage;
  /** A subagent session: who started it (core/agents). */
  parent?: { id: string; callId?: string; agent: string; depth: number; readOnly: boolean };
  /** Leading messages that are the session preamble (project instructions). */
  preamble: number;
  turnCost: number;
  totalCost: number;
  /** What cache hits saved so far, in `currency`. */
  totalSaved?: number;
  currency?: string;
  /** Goal mode: the goal's latest state (core/goal). */
  goal?: import("../engine/types.ts").GoalView;
  /** The user's title (a `title` record), when set. */
  title?: string;
  /** The session this one was forked from. */
  forkedFrom?: { id: string; turn?: number };
  /** The user's shell lines (`shell` records) run since the last user message: they join the next one. */
  pendingShell?: PendingShell[];
  /** The model's questions (`question` records) not answered yet, by call id. */
  openQuestions?: Record<string, Question>;
  /** Spend of the planner and the Guardian (included in total and totalCost). */
  byRole?: Partial<Record<UsageRole, RoleSpend>>;
}

/** A shell line's command and what it printed, waiting for the next user message. */
export interface PendingShell {
  command: string;
  ok: boolean;
  output: string;
}

export const addUsage = (a: Usage, b: Usage): Usage => {
  const out: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, cacheHitTokens: a.cacheHitTokens + b.cacheHitTokens };
  if (a.unreported || b.unreported) out.unreported = (a.unreported ?? 0) + (b.unreported ?? 0);
  if (a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined) out.cacheWriteTokens = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined) out.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return out;
};

export const cachePercent = (u: Usage): number => (u.inputTokens > 0 ? Math.round((u.cacheHitTokens / u.inputTokens) * 1000) / 10 : 0);

const zero = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheHitTokens: 0 });

/** Rebuild state from records [0, end). */
export function replay(records: SessionRecord[], end = records.length): SessionState {
  const meta = records[0];
  if (!meta || meta.t !== "meta") throw new Error("session log does not start with a meta record");
  const s: SessionState = { meta, model: meta.model, messages: [], history: [], turns: [], nextTurn: 1, total: zero(), turnUsage: zero(), preamble: 0, turnCost: 0, totalCost: 0 };
  for (let i = 1; i < end; i++) applyRecord(s, records, i);
  return s;
}

/** Fold record i into the state; a live session calls this for each record it commits. */
export function applyRecord(s: SessionState, records: SessionRecord[], i: number): void {
  const r = records[i]!;
  switch (r.t) {
    case "model":
      s.model = r.model;
      break;
    case "turn_start":
      s.turns.push({ turn: r.turn, prompt: r.prompt, record: i });
      s.nextTurn = Math.max(s.nextTurn, r.turn + 1);
      s.openTurn = r.turn;
      s.turnUsage = zero();
      s.turnCost = 0;
      s.history.push({ type: "turn_start", sessionId: s.meta.id, turn: r.turn, prompt: r.prompt });
      s.updatedAt = r.at;
      break;
    case "msg": {
      s.messages.push(r.msg);
      if (r.turn === 0) s.preamble++;
      const m = r.msg;
      // A turn's user message carries the shell lines run before it (core/engine/user-shell.ts).
      if (m.role === "user" && r.turn > 0) s.pendingShell = undefined;
      if (m.role === "assistant") {
        s.history.push({ type: "assistant", text: m.content, ...(m.reasoning ? { reasoning: m.reasoning } : {}) });
        for (const c of m.toolCalls ?? []) s.history.push({ type: "tool_call", callId: c.id, name: c.name, input: safeParse(c.arguments) });
      } else if (r.continuation) {
        s.history.push({ type: "continuation", reason: "length", ...r.continuation });
      } else if (m.role === "tool") {
        s.history.push({ type: "tool_result", callId: m.callId, name: m.name, ok: !m.isError, output: m.content, ...(r.receipt ? { receipt: r.receipt } : {}), ...(r.diff ? { diff: r.diff } : {}) });
      }
      break;
    }
    case "usage": {
      s.turnUsage = addUsage(s.turnUsage, r.usage);
      s.total = addUsage(s.total, r.usage);
      if (r.cost !== undefined) {
        s.turnCost += r.cost;
        s.totalCost += r.cost;
        s.currency = r.currency ?? s.currency;
      }
      if (r.saved) s.totalSaved = (s.totalSaved ?? 0) + r.saved;
      if (r.role) addRoleSpend(s, r.role, r.usage, r.cost);
      const cost = s.currency !== undefined ? { cost: { turn: round6(s.turnCost), total: round6(s.totalCost), currency: s.currency }, ...(s.totalSaved ? { cacheSaved: round6(s.totalSaved) } : {}) } : {};
      const roles = { ...(r.role ? { role: r.role } : {}), ...(s.byRole ? { byRole: { ...s.byRole } } : {}) };
      s.history.push({ type: "usage", turn: s.turnUsage, total: s.total, cacheHitPercent: cachePercent(s.turnUsage), ...cost, ...roles });
      break;
    }
      break;
    case "todo":
      s.history.push({ type: "todo", items: r.items });
      break;
    case "compaction":
      s.messages = [...s.messages.slice(0, r.headCount), { role: "user", content: r.summary }, ...s.messages.slice(r.keepFrom)];
      s.history.push({ type: "compaction", removedMessages: r.keepFrom - r.headCount, summaryChars: r.summary.length });
      break;
    case "turn_end":
      if (s.openTurn === r.turn) s.openTurn = undefined;
      s.history.push({ type: "turn_end", turn: r.turn, reason: r.reason, ...(r.error ? { error: r.error } : {}) });
      s.updatedAt = r.at;
      break;
    case "rewind":
      if (r.mode !== "code") {
        const mark = s.turns.find((t) => t.turn === r.turn);
        if (mark) {
          // The conversation as it was just before that turn started.
          const prefix = replay(records, mark.record);
          Object.assign(s, prefix, { nextTurn: s.nextTurn, total: s.total, totalCost: s.totalCost, totalSaved: s.totalSaved, byRole: s.byRole, currency: s.currency, model: s.model, goal: s.goal, openTurn: undefined, title: s.title, forkedFrom: s.forkedFrom });
        }
      }
      s.updatedAt = r.at;
      break;
    case "parent":
      s.parent = { id: r.id, ...(r.callId ? { callId: r.callId } : {}), agent: r.agent, depth: r.depth, readOnly: r.readOnly };
      break;
    case "warning":
      s.history.push({ type: "warning", code: r.code, message: r.message });
      break;
    case "goal":
      s.goal = r.goal;
      s.history.push({ type: "goal", change: r.change, goal: r.goal, ...(r.message ? { message: r.message } : {}) });
      break;
    case "plan":
      s.history.push({ type: "plan", route: r.route, plan: r.plan, text: r.text });
      break;
    case "guardian": {
      const { t: _t, turn: _turn, at: _at, ...review } = r;
      s.history.push({ type: "guardian", ...review });
      break;
    }
    case "shell":
      s.history.push({ type: "tool_call", callId: r.callId, name: "bash", input: { command: r.command }, user: true });
      s.history.push({ type: "tool_result", callId: r.callId, name: "bash", ok: r.ok, output: r.output });
      if (!r.refused) (s.pendingShell ??= []).push({ command: r.command, ok: r.ok, output: r.output });
      break;
    case "question":
      s.openQuestions = { ...s.openQuestions, [r.question.callId]: r.question };
      break;
    case "question_answer": {
      // The question joins the transcript with its answer: never as one still waiting.
      const q = s.openQuestions?.[r.callId];
      if (!q) break;
      delete s.openQuestions![r.callId];
      s.history.push({ type: "question_request", ...q }, { type: "question_resolved", callId: r.callId, answer: r.answer });
      break;
    }
    case "title":
      s.title = r.title || undefined;
      break;
    case "fork":
      s.forkedFrom = { id: r.from, ...(r.turn !== undefined ? { turn: r.turn } : {}) };
      break;
    case "checkpoint":
    case "meta":
      break;
  }
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

function addRoleSpend(s: SessionState, role: UsageRole, usage: Usage, cost: number | undefined): void {
  const by = (s.byRole ??= {});
  const was = by[role];
  const spent = (was?.cost ?? 0) + (cost ?? 0);
  by[role] = { usage: was ? addUsage(was.usage, usage) : { ...usage }, ...(was?.cost !== undefined || cost !== undefined ? { cost: round6(spent) } : {}) };
}

export function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Tool calls of the last assistant message that never got a result (crash mid-round). */
export function danglingToolCalls(messages: Message[]): { id: string; name: string }[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant") {
      const answered = new Set(messages.slice(i + 1).filter((x) => x.role === "tool").map((x) => (x as { callId: string }).callId));
      return (m.toolCalls ?? []).filter((c) => !answered.has(c.id)).map((c) => ({ id: c.id, name: c.name }));
    }
    if (m.role === "user") return [];
  }
  return [];
}
