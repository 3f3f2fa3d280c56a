// The open session as the UI shows it, rendered from the folded transcript
// (core/protocol/fold.ts). Pure: no DOM, so it is unit-tested on its own.
// Items are mutated in place and their `v` bumped, so components can skip
// everything that did not change.

// The engine's events and diff shapes, as they arrive on the wire; the fold is the one every front end renders from.
import type { DiffHunk, EngineEvent, FileDiff, GoalView, Question, QuestionAnswer } from "../../../protocol/events.ts";
export type { DiffHunk, FileDiff };
import { emptyTranscript, fold, turnAnswer, type AnswerBlock, type Block, type Step, type ToolBlock, type Transcript } from "../../../protocol/fold.ts";
import { goalEventLine } from "../../../goal/format.ts";
import { guardianLine, guardianTone } from "../../../guardian/format.ts";
import { subagentLine, subagentTone } from "../../../agents/events.ts";
import { goalPromptLine, isGoalPrompt } from "../../../goal/prompts.ts";

/** Where each "always allow" answer saves its rule (the engine's approval_request.persistTo). */
export interface PersistTo {
  user: { path: string; rule: string };
  project: { path: string; rule: string };
}
const target = (t: unknown) => !!t && typeof (t as { path?: unknown }).path === "string" && typeof (t as { rule?: unknown }).rule === "string";
const persistTo = (v: unknown): v is PersistTo => !!v && target((v as PersistTo).user) && target((v as PersistTo).project);

export type ToolStatus = "running" | "ask" | "allowed" | "ok" | "err" | "denied";

export type Item =
  | { kind: "user"; key: string; v: number; turn: number; text: string; steer?: boolean }
  /** `answerOf`: the key of the turn's first answer part, when the turn's answer has more than one (fold.ts turnAnswer). */
  | { kind: "assistant"; key: string; v: number; text: string; reasoning: string; streaming: boolean; answerOf?: string }
  | {
      kind: "tool";
      key: string;
      v: number;
      callId: string;
      name: string;
      input: unknown;
      status: ToolStatus;
      decision?: string;
      request?: { summary: string; suggestedRule: string; diff?: FileDiff[]; persistTo?: PersistTo };
      /** An `ask` call: the model's question (answered in the card while status is "ask") and the answer given. */
      question?: Omit<Question, "callId">;
      answer?: QuestionAnswer;
      output?: string;
      receipt?: string;
      diff?: FileDiff[];
      /** The user's own shell line (`!command`). */
      user?: true;
    }
  | { kind: "system"; key: string; v: number; text: string; tone: "info" | "warn" | "error"; keyFor?: string };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheHitPercent: number;
  cost?: { turn: number; total: number; currency: string };
  /** Prompt size of the last model step (tokens), for context-window use. */
  lastPrompt: number;
}

export interface View {
  items: Item[];
  todos: { content: string; status: string }[];
  usage: Usage | null;
  /** Waiting for the model (a turn runs and nothing is streaming or waiting for approval). */
  thinking: boolean;
  turnOpen: boolean;
  model?: string;
  /** Files changed in this session, newest diff last. */
  changed: Map<string, FileDiff[]>;
  /** The folded transcript (core/protocol/fold.ts) the items are rendered from, and each block's item. */
  t: Transcript;
  shown: Map<Block, Item>;
  /** Bumped when `changed` gains a diff. */
  filesV: number;
  /** Bumped on every change. */
  v: number;
  /** Goal mode: the session's goal as its last `goal` event left it. */
  goal?: GoalView;
}

export const emptyView = (): View => ({ items: [], todos: [], usage: null, thinking: false, turnOpen: false, changed: new Map(), t: emptyTranscript(), shown: new Map(), filesV: 0, v: 0 });

type Ev = Record<string, any>;
let keys = 0;
const key = (p: string) => `${p}${++keys}`;

function system(view: View, text: string, tone: "info" | "warn" | "error", keyFor?: string): void {
  view.items.push({ kind: "system", key: key("s"), v: 0, text, tone, ...(keyFor ? { keyFor } : {}) });
}

/** `provider "x": api_key_env X has no value in …` → the provider whose key the user can enter here. */
export function missingKeyProvider(message: string): string | undefined {
  return /provider "([^"]+)": api_key_env \S+ has no value/.exec(message)?.[1];
}

function addChanged(view: View, diffs: FileDiff[] | undefined): void {
  view.filesV++;
  for (const d of diffs ?? []) {
    const list = view.changed.get(d.path) ?? [];
    list.push(d);
    view.changed.delete(d.path);
    view.changed.set(d.path, list);
  }
}

/** The answer block as shown: created where it first appears, dropped when the fold dropped it. */
function showAnswer(view: View, b: AnswerBlock): void {
  let a = view.shown.get(b) as Extract<Item, { kind: "assistant" }> | undefined;
  const gone = !view.t.blocks.includes(b) || (!b.text && !b.reasoning && !b.streaming);
  if (gone) {
    if (a) view.items = view.items.filter((i) => i !== a);
    view.shown.delete(b);
    return;
  }
  if (!a) {
    a = { kind: "assistant", key: key("a"), v: 0, text: "", reasoning: "", streaming: true };
    view.items.push(a);
    view.shown.set(b, a);
  }
  a.text = b.text;
  a.reasoning = b.reasoning;
  a.streaming = b.streaming;
  a.v++;
  // One answer per turn: every part names the turn's first part.
  const parts = turnAnswer(view.t, b).map((p) => view.shown.get(p)).filter((x): x is Extract<Item, { kind: "assistant" }> => x?.kind === "assistant");
  if (parts.length > 1) {
    for (const p of parts) {
      if (p.answerOf === parts[0]!.key) continue;
      p.answerOf = parts[0]!.key;
      p.v++;
    }
  }
}

const STATUS: Record<ToolBlock["status"], ToolStatus> = { running: "running", ask: "ask", allowed: "allowed", denied: "denied", ok: "ok", failed: "err" };

function showTool(view: View, b: ToolBlock, ev: Ev): void {
  let t = view.shown.get(b) as Extract<Item, { kind: "tool" }> | undefined;
  if (!t) {
    t = { kind: "tool", key: key("t"), v: 0, callId: b.callId, name: b.name, input: b.input, status: "running" };
    view.items.push(t);
    view.shown.set(b, t);
  }
  t.name = b.name;
  t.input = b.input;
  if (b.user) t.user = true;
  t.status = STATUS[b.status];
  if (b.decision) t.decision = b.decision;
  if (ev.type === "approval_request") t.request = { summary: String(ev.summary ?? ev.name), suggestedRule: String(ev.suggestedRule ?? ""), ...(ev.diff ? { diff: ev.diff } : {}), ...(persistTo(ev.persistTo) ? { persistTo: ev.persistTo } : {}) };
  if (b.question) t.question = b.question;
  if (b.answer) t.answer = b.answer;
  if (ev.type === "tool_result") {
    t.output = String(ev.output ?? "");
    if (ev.receipt) t.receipt = String(ev.receipt);
    if (ev.diff) {
      t.diff = ev.diff;
      addChanged(view, ev.diff);
    }
  }
  t.v++;
  view.thinking = ev.type === "approval_resolved" ? ev.decision !== "deny" : ev.type === "tool_result" || ev.type === "question_resolved" ? view.turnOpen : false;
}

function showNotice(view: View, s: Extract<Step, { op: "notice" }>): void {
  const ev = s.block.event;
  if (s.dropped?.block) showAnswer(view, s.dropped.block);
  switch (ev.type) {
    case "compaction":
      return system(view, `Context compacted: ${ev.removedMessages} messages summarised.`, "info");
    case "waiting":
      return system(view, `Waiting for the model: nothing received for ${Math.round(ev.seconds)} s (gives up at ${ev.timeoutSeconds} s, ${ev.setting}).`, "warn");
    case "retry":
      return system(view, `Provider retry ${ev.attempt} in ${Math.round(ev.delayMs / 1000)}s: ${ev.reason}`, "warn");
    case "todo":
      view.todos = ev.items ?? [];
      return;
    case "goal": {
      view.goal = ev.goal as GoalView;
      const line = goalEventLine(ev);
      if (line) system(view, line, ev.change === "paused" || ev.change === "blocked" ? "warn" : "info");
      return;
    }
    case "warning":
      return system(view, `Warning: ${ev.message}`, "warn");
    case "guardian":
      return system(view, guardianLine(ev), guardianTone(ev));
    case "subagent":
      return system(view, subagentLine(ev), subagentTone(ev));
    case "plan":
      // The planner's plan (Markdown), shown like an answer; a plan-only answer already is the plan.
      if (!s.asAnswer) view.items.push({ kind: "assistant", key: key("p"), v: 0, text: String(ev.text ?? ""), reasoning: "", streaming: false });
      return;
    case "error": {
      const msg = String(ev.message ?? "");
      return system(view, `Error: ${msg}`, "error", missingKeyProvider(msg));
    }
  }
}

/** Fold one engine event into the view. */
export function apply(view: View, ev: Ev): void {
  view.v++;
  const s = fold(view.t, ev as EngineEvent);
  switch (s.op) {
    case "prompt": {
      // A goal turn's long instructions stand as one line.
      const text = String(s.block.text ?? "");
      view.items.push({ kind: "user", key: key("u"), v: 0, turn: s.block.turn, text: isGoalPrompt(text) ? goalPromptLine(text) : text });
      view.turnOpen = true;
      view.thinking = true;
      break;
    }
    case "text":
    case "reasoning":
      showAnswer(view, s.block);
      view.thinking = false;
      break;
    case "answer":
      showAnswer(view, s.block);
      view.thinking = view.turnOpen;
      break;
    case "discard":
      // The failed attempt's streamed text and reasoning are void.
      if (s.dropped.block) showAnswer(view, s.dropped.block);
      break;
    case "tool":
      showTool(view, s.block, ev);
      break;
    case "notice":
      showNotice(view, s);
      break;
    case "end": {
      for (const [b, item] of view.shown) {
        if (b.kind === "answer" && item.kind === "assistant" && item.streaming) {
          item.streaming = false;
          item.v++;
        }
      }
      view.turnOpen = false;
      view.thinking = false;
      const e = s.block;
      if (e.reason === "cancelled") system(view, "Cancelled.", "warn");
      else if (e.reason === "max_steps") system(view, "Stopped: step limit reached.", "warn");
      else if (e.reason === "denied") system(view, "Stopped: permission denied.", "warn");
      else if (e.reason === "error") {
        const msg = String(e.error ?? "turn failed");
        // The error event before this turn_end already said it.
        if (!e.repeatsError) system(view, `Error: ${msg}`, "error", missingKeyProvider(msg));
      } else if (e.reason !== "done") system(view, `Stopped (${e.reason}): ${e.error ?? ""}`, "error");
      break;
    }
    default:
      if (ev.type === "session") view.model = ev.model;
      else if (ev.type === "usage") {
        const t = ev.total ?? {};
        const turn = ev.turn ?? {};
        view.usage = {
          inputTokens: t.inputTokens ?? 0,
          outputTokens: t.outputTokens ?? 0,
          cacheHitPercent: ev.cacheHitPercent ?? 0,
          ...(ev.cost ? { cost: ev.cost } : {}),
          lastPrompt: (turn.inputTokens ?? 0) + (turn.outputTokens ?? 0),
        };
      } else view.v--;
  }
}

/** Steering guidance typed while a turn runs, shown where it was given. */
export function addSteer(view: View, text: string): void {
  view.v++;
  view.items.push({ kind: "user", key: key("u"), v: 0, turn: -1, text, steer: true });
}

export function addSystem(view: View, text: string, tone: "info" | "warn" | "error" = "info"): void {
  view.v++;
  system(view, text, tone);
}

const pending = (it: Item) => it.kind === "tool" && it.status === "ask";
export const pendingApprovals = (view: View) => view.items.filter(pending).length;
