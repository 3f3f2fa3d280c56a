/**
 * Engine events → ACP `session/update` payloads. Pure translation: the live
 * stream (deltas) and a stored conversation (history(), for session/load)
 * both come through here, so a replay looks like the turn did when it ran.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { proposedDiffs } from "../engine/diff.ts";
import type { EngineEvent, TodoItem, TurnEndReason } from "../engine/types.ts";
import { builtinTools } from "../tools/builtin/index.ts";
import { emptyTranscript, fold, type NoticeEvent } from "../protocol/fold.ts";
import { goalEventLine } from "../goal/format.ts";
import { guardianLine } from "../guardian/format.ts";
import { subagentLine } from "../agents/events.ts";
import { goalPromptLine, isGoalPrompt } from "../goal/prompts.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { isAbsolute, resolve } from "node:path";

export type Update = acp.SessionUpdate;

const KIND: Record<string, acp.ToolKind> = {
  read_file: "read",
  ls: "read",
  glob: "search",
  grep: "search",
  code_index: "search",
  write_file: "edit",
  edit_file: "edit",
  multi_edit: "edit",
  move_file: "move",
  bash: "execute",
  todo_write: "think",
  web_fetch: "fetch",
};

const BUILTIN = new Map<string, ToolDefinition>(builtinTools.map((t) => [t.name, t as ToolDefinition]));

/** A goal event as one message line (core/goal/format.ts wording). */
function goalUpdate(e: Extract<EngineEvent, { type: "goal" }>): Update[] {
  const line = goalEventLine(e);
  return line ? [{ sessionUpdate: "agent_message_chunk", content: text(`\n[${line}]\n`) }] : [];
}

/**
 * The planner's plan: its steps as ACP's native plan (pending entries, in
 * order), and the whole plan as an agent message. A replayed plan-only
 * answer skips the message: its stored assistant message already is the plan.
 */
function plannerUpdate(e: Extract<EngineEvent, { type: "plan" }>, replaying: boolean): Update[] {
  const plan: Update = { sessionUpdate: "plan", entries: e.plan.steps.map((step) => ({ content: step, priority: "high", status: "pending" })) };
  return replaying && e.route === "plan_only" ? [plan] : [plan, { sessionUpdate: "agent_message_chunk", content: text(`\n${e.text}\n\n`) }];
}

/** A Guardian review, in the thought stream (it is the agent's own check, not its answer). */
const guardianUpdate = (e: Extract<EngineEvent, { type: "guardian" }>): Update => ({ sessionUpdate: "agent_thought_chunk", content: text(`\n[${guardianLine(e)}]\n`) });

/** How a turn's end reads as an ACP stop reason; undefined = answer with an error instead. */
export function stopReason(reason: TurnEndReason): acp.StopReason | undefined {
  switch (reason) {
    case "done":
    case "empty":
    case "denied":
      return "end_turn";
    case "cancelled":
      return "cancelled";
    case "max_steps":
      return "max_turn_requests";
    case "length":
      return "max_tokens";
    case "refusal":
    case "content_filter":
      return "refusal";
    case "error":
    case "needs_user":
      return undefined;
  }
}

const text = (t: string): acp.ContentBlock => ({ type: "text", text: t });

export function planOf(items: TodoItem[]): Update {
  return { sessionUpdate: "plan", entries: items.map((i) => ({ content: i.content, priority: "medium", status: i.status })) };
}

export class UpdateTranslator {
  /** Input of each call seen so far, for locations and diffs on its result. */
  private readonly calls = new Map<string, { name: string; input: unknown; diffs: acp.ToolCallContent[] }>();

  constructor(
    private readonly workspace: string,
    private readonly tools: (name: string) => ToolDefinition | undefined = (n) => BUILTIN.get(n),
    /** Current text of a file for a write's before-image (default: the disk). */
    private readonly readCurrent?: (abs: string) => string | null,
    /** The model's context window in tokens (0 = unknown), for usage_update.size. */
    private readonly contextWindow: () => number = () => 0,
  ) {}

  /** The turn's usage at the previous usage event: the difference is the last step's. */
  private turnSoFar = { inputTokens: 0, outputTokens: 0 };

  private abs(p: string): string {
    return isAbsolute(p) ? p : resolve(this.workspace, p);
  }

  title(name: string, input: unknown): string {
    try {
      return this.tools(name)?.summarize(input) ?? name;
    } catch {
      return name;
    }
  }

  locations(name: string, input: unknown): acp.ToolCallLocation[] {
    const i = (input ?? {}) as Record<string, unknown>;
    const paths = name === "move_file" ? [i.source, i.destination] : [i.path];
    const out: acp.ToolCallLocation[] = [];
    for (const p of paths) {
      if (typeof p !== "string" || p === "") continue;
      const line = name === "read_file" && typeof i.offset === "number" ? i.offset : undefined;
      out.push({ path: this.abs(p), ...(line ? { line } : {}) });
    }
    return out;
  }

  /** Before-images are read now, before the call runs; a replay has none (the file has moved on). */
  diffs(name: string, input: unknown, replaying = false): acp.ToolCallContent[] {
    const read = replaying ? () => null : this.readCurrent;
    return proposedDiffs(name, input, this.workspace, read).map((d) => ({ type: "diff", path: d.path, oldText: d.oldText, newText: d.newText }));
  }

  /** The tool_call announcement (also used inside permission requests). */
  toolCall(callId: string, name: string, input: unknown, status: acp.ToolCallStatus = "pending", replaying = false): acp.ToolCall & { sessionUpdate: "tool_call" } {
    const known = this.calls.get(callId);
    const diffs = known?.diffs ?? this.diffs(name, input, replaying);
    this.calls.set(callId, { name, input, diffs });
    return {
      sessionUpdate: "tool_call",
      toolCallId: callId,
      title: this.title(name, input),
      kind: KIND[name] ?? "other",
      status,
      rawInput: input as Record<string, unknown>,
      locations: this.locations(name, input),
      ...(diffs.length ? { content: diffs } : {}),
    };
  }

  toolResult(callId: string, name: string, ok: boolean, output: string, receipt?: string): Update {
    const call = this.calls.get(callId);
    const content: acp.ToolCallContent[] = [{ type: "content", content: text(output) }];
    if (ok && call) content.push(...call.diffs);
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: callId,
      status: ok ? "completed" : "failed",
      content,
      rawOutput: { output, ...(receipt ? { receipt } : {}) },
    };
  }

  /** The live session's transcript (core/protocol/fold.ts): updates are rendered from its steps. */
  readonly t = emptyTranscript();

  /** One live engine event; [] when it has no ACP counterpart. */
  live(e: EngineEvent): Update[] {
    const s = fold(this.t, e);
    if (e.type === "usage") {
      // What the context holds now: the last step's prompt and answer.
      const used = e.turn.inputTokens - this.turnSoFar.inputTokens + (e.turn.outputTokens - this.turnSoFar.outputTokens);
      this.turnSoFar = { inputTokens: e.turn.inputTokens, outputTokens: e.turn.outputTokens };
      return [usageUpdate(e, Math.max(0, used), this.contextWindow())];
    }
    switch (s.op) {
      case "text":
        return [{ sessionUpdate: "agent_message_chunk", content: text(s.text) }];
      case "reasoning":
        return [{ sessionUpdate: "agent_thought_chunk", content: text(s.text) }];
      case "prompt":
        this.turnSoFar = { inputTokens: 0, outputTokens: 0 };
        return [];
      case "tool": {
        const t = s.event;
        if (t.type === "tool_call") return [this.toolCall(t.callId, t.name, t.input)];
        if (t.type === "approval_resolved") return t.decision === "deny" ? [] : [{ sessionUpdate: "tool_call_update", toolCallId: t.callId, status: "in_progress" }];
        if (t.type === "tool_result") return [this.toolResult(t.callId, t.name, t.ok, t.output, t.receipt)];
        return [];
      }
      case "discard":
        // A cancelled step's text stays the (cut short) answer; nothing to take back.
        if (/cancel/i.test(s.event.reason)) return [];
        // ACP cannot take back streamed chunks: say so in the thought stream.
        return [{ sessionUpdate: "agent_thought_chunk", content: text(`\n[the model's reply broke off (${s.event.reason}); what streamed above is discarded and the step is retried]\n`) }];
      case "notice":
        return this.notice(s.block.event, false);
      default:
        return [];
    }
  }

  private notice(e: NoticeEvent, replaying: boolean): Update[] {
    switch (e.type) {
      case "todo":
        return [planOf(e.items)];
      case "warning":
        return replaying ? [] : [{ sessionUpdate: "agent_thought_chunk", content: text(`[warning] ${e.message}\n`) }];
      case "goal":
        return goalUpdate(e);
      case "plan":
        return plannerUpdate(e, replaying);
      case "guardian":
        return [guardianUpdate(e)];
      case "subagent":
        // Live only (never in history): the child's steps, in the thought stream.
        return replaying ? [] : [{ sessionUpdate: "agent_thought_chunk", content: text(`\n[${subagentLine(e).trim()}]\n`) }];
      default:
        // continuation, retry, waiting, compaction, error: ACP shows them otherwise (or not).
        return [];
    }
  }

  /** A stored conversation (EngineSession.history()) as the updates a client replays. */
  replay(history: EngineEvent[]): Update[] {
    const out: Update[] = [];
    const t = emptyTranscript();
    for (const e of history) {
      const s = fold(t, e);
      switch (s.op) {
        case "prompt":
          out.push({ sessionUpdate: "user_message_chunk", content: text(isGoalPrompt(s.block.text) ? goalPromptLine(s.block.text) : s.block.text) });
          break;
        case "notice":
          out.push(...this.notice(s.block.event, true));
          break;
        case "answer":
          if (s.reasoning) out.push({ sessionUpdate: "agent_thought_chunk", content: text(s.reasoning) });
          if (s.text) out.push({ sessionUpdate: "agent_message_chunk", content: text(s.text) });
          break;
        case "tool":
          if (s.event.type === "tool_call") out.push(this.toolCall(s.event.callId, s.event.name, s.event.input, "pending", true));
          else if (s.event.type === "tool_result") out.push(this.toolResult(s.event.callId, s.event.name, s.event.ok, s.event.output, s.event.receipt));
          break;
        default:
          break;
      }
    }
    return out;
  }
}

function usageUpdate(e: Extract<EngineEvent, { type: "usage" }>, used: number, size: number): Update {
  return {
    sessionUpdate: "usage_update",
    used,
    size,
    ...(e.cost ? { cost: { amount: e.cost.total, currency: e.cost.currency } } : {}),
    _meta: { "reasonix.io": { turn: e.turn, total: e.total, cacheHitPercent: e.cacheHitPercent } },
  } as Update;
}
