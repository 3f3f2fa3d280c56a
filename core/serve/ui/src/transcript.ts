// The open session as the UI shows it, built from the engine's events
// (core/engine/types.ts). Pure: no DOM, so it is unit-tested on its own.
// Items are mutated in place and their `v` bumped, so components can skip
// everything that did not change.

// The engine's diff shapes, as they arrive on the wire (type-only: nothing of the engine is bundled).
import type { DiffHunk, FileDiff } from "../../../engine/file-diff.ts";
export type { DiffHunk, FileDiff };
import type { EngineEvent, GoalView } from "../../../engine/types.ts";
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
  | { kind: "assistant"; key: string; v: number; text: string; reasoning: string; streaming: boolean }
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
      output?: string;
      receipt?: string;
      diff?: FileDiff[];
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
  /** Answer blocks the current model attempt streamed into (a notice in between splits them). */
  attempt: Set<Item>;
  /** Bumped when `changed` gains a diff. */
  filesV: number;
  /** Bumped on every change. */
  v: number;
  /** Goal mode: the session's goal as its last `goal` event left it. */
  goal?: GoalView;
}

export const emptyView = (): View => ({ items: [], todos: [], usage: null, thinking: false, turnOpen: false, changed: new Map(), attempt: new Set(), filesV: 0, v: 0 });

function drop(view: View, gone: Set<Item>): void {
  if (gone.size) view.items = view.items.filter((i) => !gone.has(i));
}

type Ev = Record<string, any>;
let keys = 0;
const key = (p: string) => `${p}${++keys}`;

function streaming(view: View): Extract<Item, { kind: "assistant" }> | undefined {
  const last = view.items[view.items.length - 1];
  return last?.kind === "assistant" && last.streaming ? last : undefined;
}

function openAssistant(view: View): Extract<Item, { kind: "assistant" }> {
  const cur = streaming(view);
  if (cur) return cur;
  const a = { kind: "assistant" as const, key: key("a"), v: 0, text: "", reasoning: "", streaming: true };
  view.items.push(a);
  return a;
}

function tool(view: View, callId: string, name: string, input: unknown): Extract<Item, { kind: "tool" }> {
  for (let i = view.items.length - 1; i >= 0; i--) {
    const it = view.items[i]!;
    if (it.kind === "tool" && it.callId === callId) return it;
  }
  const t = { kind: "tool" as const, key: key("t"), v: 0, callId, name, input, status: "running" as ToolStatus };
  view.items.push(t);
  return t;
}

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

/** Fold one engine event into the view. */
export function apply(view: View, ev: Ev): void {
  view.v++;
  switch (ev.type) {
    case "session":
      view.model = ev.model;
      break;
    case "turn_start":
      // A goal turn's long instructions stand as one line.
      view.items.push({ kind: "user", key: key("u"), v: 0, turn: ev.turn, text: isGoalPrompt(String(ev.prompt ?? "")) ? goalPromptLine(String(ev.prompt)) : String(ev.prompt ?? "") });
      view.turnOpen = true;
      view.thinking = true;
      break;
    case "reasoning_delta": {
      const a = openAssistant(view);
      view.attempt.add(a);
      a.reasoning += ev.text;
      a.v++;
      view.thinking = false;
      break;
    }
    case "text_delta": {
      const a = openAssistant(view);
      view.attempt.add(a);
      a.text += ev.text;
      a.v++;
      view.thinking = false;
      break;
    }
    case "assistant": {
      const a = streaming(view);
      // The attempt's text may be split by a notice: the last block takes the whole answer.
      view.attempt.delete(a as Item);
      drop(view, view.attempt);
      view.attempt.clear();
      const text = String(ev.text ?? "");
      const reasoning = String(ev.reasoning ?? a?.reasoning ?? "");
      if (a) {
        a.text = text;
        a.reasoning = reasoning;
        a.streaming = false;
        a.v++;
        if (!text && !reasoning) view.items.pop();
      } else if (text || reasoning) {
        view.items.push({ kind: "assistant", key: key("a"), v: 0, text, reasoning, streaming: false });
      }
      view.thinking = view.turnOpen;
      break;
    }
    case "attempt_discarded": {
      // The failed attempt's streamed text and reasoning are void: drop every block it streamed into.
      drop(view, view.attempt);
      view.attempt.clear();
      break;
    }
    case "tool_call": {
      const t = tool(view, ev.callId, ev.name, ev.input);
      t.v++;
      view.thinking = false;
      break;
    }
    case "approval_request": {
      const t = tool(view, ev.callId, ev.name, ev.input);
      t.status = "ask";
      t.request = { summary: String(ev.summary ?? ev.name), suggestedRule: String(ev.suggestedRule ?? ""), ...(ev.diff ? { diff: ev.diff } : {}), ...(persistTo(ev.persistTo) ? { persistTo: ev.persistTo } : {}) };
      t.v++;
      view.thinking = false;
      break;
    }
    case "approval_resolved": {
      const t = tool(view, ev.callId, "", undefined);
      t.status = ev.decision === "deny" ? "denied" : "allowed";
      t.decision = ev.decision;
      t.v++;
      view.thinking = ev.decision !== "deny";
      break;
    }
    case "tool_result": {
      const t = tool(view, ev.callId, ev.name, undefined);
      if (!t.name) t.name = ev.name;
      t.status = ev.ok ? "ok" : t.status === "denied" ? "denied" : "err";
      t.output = String(ev.output ?? "");
      if (ev.receipt) t.receipt = String(ev.receipt);
      if (ev.diff) {
        t.diff = ev.diff;
        addChanged(view, ev.diff);
      }
      t.v++;
      view.thinking = view.turnOpen;
      break;
    }
    case "todo":
      view.todos = ev.items ?? [];
      break;
    case "usage": {
      const t = ev.total ?? {};
      const turn = ev.turn ?? {};
      view.usage = {
        inputTokens: t.inputTokens ?? 0,
        outputTokens: t.outputTokens ?? 0,
        cacheHitPercent: ev.cacheHitPercent ?? 0,
        ...(ev.cost ? { cost: ev.cost } : {}),
        lastPrompt: (turn.inputTokens ?? 0) + (turn.outputTokens ?? 0),
      };
      break;
    }
    case "compaction":
      system(view, `Context compacted: ${ev.removedMessages} messages summarised.`, "info");
      break;
    case "waiting":
      system(view, `Waiting for the model: nothing received for ${Math.round(ev.seconds)} s (gives up at ${ev.timeoutSeconds} s, ${ev.setting}).`, "warn");
      break;
    case "retry":
      system(view, `Provider retry ${ev.attempt} in ${Math.round(ev.delayMs / 1000)}s: ${ev.reason}`, "warn");
      break;
    case "continuation":
      break;
    case "turn_end": {
      const a = streaming(view);
      if (a) {
        a.streaming = false;
        a.v++;
      }
      view.turnOpen = false;
      view.thinking = false;
      const last = view.items[view.items.length - 1];
      // The error event before this turn_end already said it.
      const said = (msg: string) => last?.kind === "system" && last.text.includes(msg);
      if (ev.reason === "cancelled") system(view, "Cancelled.", "warn");
      else if (ev.reason === "max_steps") system(view, "Stopped: step limit reached.", "warn");
      else if (ev.reason === "denied") system(view, "Stopped: permission denied.", "warn");
      else if (ev.reason === "error") {
        const msg = String(ev.error ?? "turn failed");
        if (!said(msg)) system(view, `Error: ${msg}`, "error", missingKeyProvider(msg));
      } else if (ev.reason !== "done") system(view, `Stopped (${ev.reason}): ${ev.error ?? ""}`, "error");
      break;
    }
    case "goal": {
      view.goal = ev.goal as GoalView;
      const line = goalEventLine(ev as Extract<EngineEvent, { type: "goal" }>);
      if (line) system(view, line, ev.change === "paused" || ev.change === "blocked" ? "warn" : "info");
      break;
    }
    case "warning":
      system(view, `Warning: ${ev.message}`, "warn");
      break;
    case "guardian": {
      const g = ev as Extract<EngineEvent, { type: "guardian" }>;
      system(view, guardianLine(g), guardianTone(g));
      break;
    }
    case "subagent": {
      const a = ev as Extract<EngineEvent, { type: "subagent" }>;
      system(view, subagentLine(a), subagentTone(a));
      break;
    }
    case "plan":
      // The planner's plan (Markdown), shown like an answer; a plan-only answer already is the plan.
      if (ev.route !== "plan_only") view.items.push({ kind: "assistant", key: key("p"), v: 0, text: String(ev.text ?? ""), reasoning: "", streaming: false });
      break;
    case "error": {
      const msg = String(ev.message ?? "");
      system(view, `Error: ${msg}`, "error", missingKeyProvider(msg));
      break;
    }
    default:
      view.v--;
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
