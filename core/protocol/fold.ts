/**
 * Engine events → the transcript every front end shows. The rules live here
 * once: the terminal chat, line mode, `reasonix run`, the web UI and ACP fold
 * their events through `fold` and only render the steps it returns.
 *
 * - Text and reasoning streamed by a model attempt that fails
 *   (`attempt_discarded`, or a bare `retry` from an older engine) are dropped.
 * - The `assistant` event commits a step's answer: its text replaces what was
 *   streamed; its reasoning counts only when none was streamed (shown once).
 * - After a `continuation` the next step's answer joins the previous answer
 *   block: one answer block, not one per model step.
 * - A turn has one answer: the text a step writes after a tool call is a later
 *   part of it (`turnAnswer`). Front ends that show blocks side by side keep
 *   the tool cards between the parts, under one answer with one copy of the
 *   whole (`answerText`).
 * - A tool block pairs the call with its approval and its result (by callId);
 *   an `ask` call's block holds its question and the user's answer.
 * - A plan-only plan is the turn's answer: its `plan` event is no extra block.
 *
 * Browser-safe: nothing here imports outside core/protocol.
 */
import type { ApprovalDecision } from "./modes.ts";
import type { EngineEvent, FileDiff, GoalView, PersistTargets, Question, QuestionAnswer, TodoItem } from "./events.ts";

type Ev<T extends EngineEvent["type"]> = Extract<EngineEvent, { type: T }>;

export interface PromptBlock {
  kind: "prompt";
  turn: number;
  text: string;
}

export interface AnswerBlock {
  kind: "answer";
  text: string;
  reasoning: string;
  /** A model step is streaming into it. */
  streaming: boolean;
  /** Model steps committed into it (more than one after a continuation). */
  steps: number;
}

export type ToolStatus = "running" | "ask" | "allowed" | "denied" | "ok" | "failed";

export interface ToolBlock {
  kind: "tool";
  callId: string;
  name: string;
  /** The call's input (from tool_call or approval_request; undefined when only the result was seen). */
  input: unknown;
  status: ToolStatus;
  request?: { summary: string; suggestedRule: string; diff?: FileDiff[]; persistTo?: PersistTargets };
  decision?: ApprovalDecision;
  /** An `ask` call: the question (status "ask" while it waits) and the user's answer once given. */
  question?: Omit<Question, "callId">;
  answer?: QuestionAnswer;
  output?: string;
  receipt?: string;
  diff?: FileDiff[];
  /** The user's own shell line (`!command`), run between turns. */
  user?: true;
}

/** Events shown where they came, as they are. */
export type NoticeEvent = Ev<"warning" | "guardian" | "subagent" | "goal" | "plan" | "compaction" | "retry" | "waiting" | "continuation" | "error" | "todo">;

export interface NoticeBlock {
  kind: "notice";
  event: NoticeEvent;
}

export interface EndBlock {
  kind: "end";
  turn: number;
  reason: Ev<"turn_end">["reason"];
  error?: string;
  /** The error notice just before already says `error`. */
  repeatsError: boolean;
}

export type Block = PromptBlock | AnswerBlock | ToolBlock | NoticeBlock | EndBlock;

/** What the attempt running now streamed, taken back if it fails. */
interface Attempt {
  block: AnswerBlock;
  /** The block's text and reasoning before the attempt began. */
  text: number;
  reasoning: number;
  /** The attempt opened the block (it goes when the attempt does and left nothing). */
  opened: boolean;
  streamedText: string;
  streamedReasoning: string;
}

export interface Transcript {
  blocks: Block[];
  /** Tool calls without a result yet (cleared at turn end). */
  running: Map<string, ToolBlock>;
  turnOpen: boolean;
  model?: string;
  usage?: Ev<"usage">;
  todos: TodoItem[];
  goal?: GoalView;
  /** Internal: the attempt streaming now; the answer a continuation joins. */
  attempt?: Attempt;
  joins?: AnswerBlock;
}

/** What one event changed, for front ends that render as events come. */
export type Step =
  | { op: "prompt"; block: PromptBlock }
  | { op: "text" | "reasoning"; block: AnswerBlock; text: string }
  /** A step's answer, committed. `reasoning`: only when none of it was streamed. `joined`: it continues an earlier step's answer. */
  | { op: "answer"; block: AnswerBlock; text: string; streamed: string; reasoning?: string; joined: boolean }
  /** The failed attempt's streamed text and reasoning were taken back (`removed`: with the block they had opened). */
  | { op: "discard"; event: Ev<"attempt_discarded">; dropped: Dropped }
  | { op: "tool"; block: ToolBlock; event: Ev<"tool_call" | "approval_request" | "approval_resolved" | "question_request" | "question_resolved" | "tool_result"> }
  /** `dropped`: a bare retry took back the attempt's text; `joins`: a continuation will extend this answer; `asAnswer`: a plan-only plan (the answer already is the plan). */
  | { op: "notice"; block: NoticeBlock; dropped?: Dropped; joins?: AnswerBlock; asAnswer?: boolean }
  | { op: "end"; block: EndBlock }
  /** Nothing to show in the transcript (session, usage, progress, elicitation, unknown events). */
  | { op: "none" };

export interface Dropped {
  block?: AnswerBlock;
  removed: boolean;
  text: string;
  reasoning: string;
}

export const emptyTranscript = (): Transcript => ({ blocks: [], running: new Map(), turnOpen: false, todos: [] });

/** The answer blocks of the turn that holds `b`, in order (just `b` when it is the turn's only one). */
export function turnAnswer(t: Transcript, b: AnswerBlock): AnswerBlock[] {
  const i = t.blocks.indexOf(b);
  if (i < 0) return [b];
  let start = i;
  while (start > 0 && t.blocks[start - 1]!.kind !== "prompt") start--;
  let end = i;
  while (end < t.blocks.length - 1 && t.blocks[end + 1]!.kind !== "prompt") end++;
  return t.blocks.slice(start, end + 1).filter((x): x is AnswerBlock => x.kind === "answer");
}

/** A turn's answer as one text (what "Copy" copies): its parts' text, a blank line between them. */
export const answerText = (parts: readonly { text: string }[]): string => parts.map((p) => p.text.trim()).filter(Boolean).join("\n\n");

/**
 * An `ask` call's question and the user's answer, as front ends show a saved
 * session: the question from its `question_request`, else (a headless run
 * that could not ask, a session that stopped before the answer was written)
 * from the call's own input, with no answer: it was never answered.
 */
export function askedQuestion(b: ToolBlock): { question: string; options: string[]; answer?: QuestionAnswer } | undefined {
  if (b.question) return { question: b.question.question, options: b.question.options.map((o) => o.label), ...(b.answer ? { answer: b.answer } : {}) };
  if (b.name !== "ask") return undefined;
  const input = (b.input ?? {}) as { question?: unknown; options?: unknown };
  if (typeof input.question !== "string" || !input.question.trim()) return undefined;
  const options = Array.isArray(input.options) ? input.options.flatMap((o) => (typeof o?.label === "string" && o.label.trim() ? [o.label.trim()] : [])) : [];
  return { question: input.question.trim(), options };
}

/** The whole transcript of a stored or recorded event list. */
export function foldTranscript(events: Iterable<EngineEvent>): Transcript {
  const t = emptyTranscript();
  for (const e of events) fold(t, e);
  return t;
}

function streamInto(t: Transcript): Attempt {
  if (t.attempt) return t.attempt;
  let block = t.joins;
  const opened = !block;
  if (!block) {
    block = { kind: "answer", text: "", reasoning: "", streaming: true, steps: 0 };
    t.blocks.push(block);
  }
  block.streaming = true;
  t.attempt = { block, text: block.text.length, reasoning: block.reasoning.length, opened, streamedText: "", streamedReasoning: "" };
  return t.attempt;
}

function discard(t: Transcript): Dropped {
  const a = t.attempt;
  t.attempt = undefined;
  if (!a) return { removed: false, text: "", reasoning: "" };
  const b = a.block;
  b.text = b.text.slice(0, a.text);
  b.reasoning = b.reasoning.slice(0, a.reasoning);
  const removed = a.opened && !b.text && !b.reasoning;
  if (removed) t.blocks = t.blocks.filter((x) => x !== b);
  else b.streaming = false;
  return { block: b, removed, text: a.streamedText, reasoning: a.streamedReasoning };
}

function tool(t: Transcript, callId: string, name: string): ToolBlock {
  for (let i = t.blocks.length - 1; i >= 0; i--) {
    const b = t.blocks[i]!;
    if (b.kind === "tool" && b.callId === callId) return b;
  }
  const b: ToolBlock = { kind: "tool", callId, name, input: undefined, status: "running" };
  t.blocks.push(b);
  return b;
}

function notice(t: Transcript, event: NoticeEvent): NoticeBlock {
  const block: NoticeBlock = { kind: "notice", event };
  t.blocks.push(block);
  return block;
}

/** Fold one event into `t` (in place) and say what changed. */
export function fold(t: Transcript, e: EngineEvent): Step {
  switch (e.type) {
    case "session":
      t.model = e.model;
      return { op: "none" };
    case "turn_start": {
      const block: PromptBlock = { kind: "prompt", turn: e.turn, text: e.prompt };
      t.blocks.push(block);
      t.turnOpen = true;
      t.joins = undefined;
      return { op: "prompt", block };
    }
    case "text_delta":
    case "reasoning_delta": {
      const a = streamInto(t);
      if (e.type === "text_delta") {
        a.block.text += e.text;
        a.streamedText += e.text;
      } else {
        a.block.reasoning += e.text;
        a.streamedReasoning += e.text;
      }
      return { op: e.type === "text_delta" ? "text" : "reasoning", block: a.block, text: e.text };
    }
    case "assistant": {
      const joined = !!t.joins;
      const a = t.attempt ?? (e.text || e.reasoning || joined ? streamInto(t) : undefined);
      t.attempt = undefined;
      t.joins = undefined;
      const streamed = a?.streamedText ?? "";
      const reasoning = a?.streamedReasoning ? undefined : e.reasoning;
      if (!a) return { op: "answer", block: { kind: "answer", text: "", reasoning: "", streaming: false, steps: 1 }, text: e.text, streamed, joined };
      const b = a.block;
      b.text = b.text.slice(0, a.text) + e.text;
      b.reasoning = b.reasoning.slice(0, a.reasoning) + (e.reasoning ?? a.streamedReasoning);
      b.streaming = false;
      b.steps++;
      if (a.opened && !b.text && !b.reasoning) t.blocks = t.blocks.filter((x) => x !== b);
      return { op: "answer", block: b, text: e.text, streamed, ...(reasoning ? { reasoning } : {}), joined };
    }
    case "attempt_discarded":
      return { op: "discard", event: e, dropped: discard(t) };
    case "retry": {
      // An older engine sends only `retry`: the attempt's deltas go the same way.
      const dropped = t.attempt ? discard(t) : undefined;
      return { op: "notice", block: notice(t, e), ...(dropped ? { dropped } : {}) };
    }
    case "continuation": {
      const last = [...t.blocks].reverse().find((b): b is AnswerBlock => b.kind === "answer");
      t.joins = last;
      return { op: "notice", block: notice(t, e), ...(last ? { joins: last } : {}) };
    }
    case "tool_call": {
      const b = tool(t, e.callId, e.name);
      b.name = e.name;
      b.input = e.input;
      if (e.user) b.user = true;
      t.running.set(e.callId, b);
      return { op: "tool", block: b, event: e };
    }
    case "approval_request": {
      const b = tool(t, e.callId, e.name);
      if (b.input === undefined) b.input = e.input;
      b.status = "ask";
      b.request = { summary: e.summary, suggestedRule: e.suggestedRule, ...(e.diff ? { diff: e.diff } : {}), ...(e.persistTo ? { persistTo: e.persistTo } : {}) };
      return { op: "tool", block: b, event: e };
    }
    case "approval_resolved": {
      const b = tool(t, e.callId, "");
      b.status = e.decision === "deny" ? "denied" : "allowed";
      b.decision = e.decision;
      return { op: "tool", block: b, event: e };
    }
    case "question_request": {
      const b = tool(t, e.callId, "ask");
      b.status = "ask";
      b.question = { question: e.question, options: e.options, multi: e.multi, allowText: e.allowText };
      return { op: "tool", block: b, event: e };
    }
    case "question_resolved": {
      const b = tool(t, e.callId, "ask");
      b.status = "running";
      b.answer = e.answer;
      return { op: "tool", block: b, event: e };
    }
    case "tool_result": {
      const b = tool(t, e.callId, e.name);
      if (!b.name) b.name = e.name;
      b.status = e.ok ? "ok" : b.status === "denied" ? "denied" : "failed";
      b.output = e.output;
      if (e.receipt) b.receipt = e.receipt;
      if (e.diff) b.diff = e.diff;
      t.running.delete(e.callId);
      return { op: "tool", block: b, event: e };
    }
    case "usage":
      t.usage = e;
      return { op: "none" };
    case "todo":
      t.todos = e.items;
      return { op: "notice", block: notice(t, e) };
    case "goal":
      t.goal = e.goal;
      return { op: "notice", block: notice(t, e) };
    case "plan":
      return { op: "notice", block: notice(t, e), ...(e.route === "plan_only" ? { asAnswer: true } : {}) };
    case "warning":
    case "guardian":
    case "subagent":
    case "compaction":
    case "waiting":
    case "error":
      return { op: "notice", block: notice(t, e) };
    case "turn_end": {
      if (t.attempt) {
        t.attempt.block.streaming = false;
        t.attempt = undefined;
      }
      t.joins = undefined;
      t.turnOpen = false;
      t.running.clear();
      const last = t.blocks[t.blocks.length - 1];
      const repeatsError = !!e.error && last?.kind === "notice" && last.event.type === "error" && last.event.message.includes(e.error);
      const block: EndBlock = { kind: "end", turn: e.turn, reason: e.reason, ...(e.error ? { error: e.error } : {}), repeatsError };
      t.blocks.push(block);
      return { op: "end", block };
    }
    default:
      // Live progress, elicitation, events from a newer engine: nothing in the transcript.
      return { op: "none" };
  }
}
