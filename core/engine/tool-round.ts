/**
 * One round of a turn's tool calls: parse, PreToolUse hooks, permission
 * (rules, Guardian, the user through the approval desk), run — reads in
 * parallel, writers one by one — and commit the results in call order.
 */
import { errorMessage } from "../errors.ts";
import type { ToolCall } from "../providers/types.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.ts";
import { callSummary } from "../tools/summary.ts";
import { isWriter, landedFileDiffs, proposedFileDiffs, snapshot, type FileDiff } from "./file-diff.ts";
import { cutToolCallResult } from "./finish.ts";
import type { ReviewRequest } from "../guardian/guardian.ts";
import type { ApprovalRequest } from "./approvals.ts";
import { now, type SessionCore } from "./session-core.ts";
import { recordUsage } from "./usage.ts";
import { traceStart, traceStep } from "../trace.ts";

const parseArgs = (text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } => {
  try {
    const v = JSON.parse(text || "{}");
    if (v && typeof v === "object" && !Array.isArray(v)) return { ok: true, value: v };
    return { ok: false, error: "tool arguments must be a JSON object" };
  } catch (e) {
    return { ok: false, error: `tool arguments are not valid JSON: ${errorMessage(e)}` };
  }
};

/**
 * Run one round of tool calls; reads in a row run in parallel, writers one
 * by one. Results are committed in call order as soon as they are known, so
 * a crash mid-round loses only the calls still running.
 */
export async function runRound(s: SessionCore, turn: number, calls: ToolCall[], signal: AbortSignal, checkpointed: Set<string>, cut = new Set<string>(), limit?: number): Promise<boolean> {
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
      s.commit({ t: "msg", turn, msg: { role: "tool", callId: call.id, name: call.name, content: res.output, ...(res.ok ? {} : { isError: true }) }, ...receipt, ...diff });
      traceStep("tool:log", t0, { tool: call.name });
      s.emit({ type: "tool_result", callId: call.id, name: call.name, ok: res.ok, output: res.output, ...receipt, ...diff });
    }
  };
  let denied = false;
  let batch: Promise<void>[] = [];
  const flush = async () => {
    await Promise.all(batch);
    batch = [];
  };
  const ctx = s.toolContext(turn, signal, checkpointed);
  for (const call of calls) {
    const args = parseArgs(call.arguments);
    s.emit({ type: "tool_call", callId: call.id, name: call.name, input: args.ok ? args.value : call.arguments });
  }
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    const tool = s.toolMap.get(call.name);
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
      settle(i, { ok: false, output: s.deps.toolSource?.unavailable?.(call.name) ?? `unknown tool "${call.name}"; available: ${[...s.toolMap.keys()].join(", ")}` });
      continue;
    }
    if (!args.ok) {
      settle(i, { ok: false, output: args.error });
      continue;
    }
    const hook = await s.deps.hooks?.preToolUse(call.name, args.value, signal);
    if (hook?.block) {
      // The reason goes to the model; the round goes on.
      settle(i, { ok: false, output: `blocked by a PreToolUse hook: ${hook.block}` });
      continue;
    }
    const t0 = traceStart();
    const allowed = await authorize(s, call, tool, args.value, signal, !!hook?.approve);
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
    const before = isWriter(tool.name) ? snapshot(tool.name, args.value, s.deps.workspace) : undefined;
    const progress = (p: { progress: number; total?: number; message?: string }) => s.emit({ type: "tool_progress", callId: call.id, ...p });
    const t1 = traceStart();
    const run = execute(s, tool, args.value, { ...ctx, callId: call.id, emitProgress: progress }).then((r) => {
      traceStep("tool:run", t1, { tool: call.name });
      if (before && r.ok) {
        try {
          diffs.set(call.id, landedFileDiffs(tool.name, args.value, s.deps.workspace, before));
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

export async function execute(s: SessionCore, tool: ToolDefinition, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  let r: ToolResult;
  try {
    // A tool that changes something acts only once the log holding its call is on disk; reads need not wait.
    if (tool.kind !== "read") {
      const synced = s.file.flushed();
      if (tool.awaitsLogItself) {
        synced.catch(() => {}); // the tool awaits it (and reports its failure)
        ctx = { ...ctx, logSynced: synced };
      } else await synced;
    }
    r = await tool.run(input, ctx);
  } catch (e) {
    if (ctx.signal.aborted) return { ok: false, output: "cancelled" };
    r = { ok: false, output: `error: ${errorMessage(e)}` };
  }
  return s.deps.hooks && !ctx.signal.aborted ? s.deps.hooks.postToolUse(tool.name, input, r, ctx.signal) : r;
}

/** true when the call may run, else the refusal text the model sees. */
export async function authorize(s: SessionCore, call: ToolCall, tool: ToolDefinition, input: unknown, signal: AbortSignal, hookApproved = false): Promise<true | string | { refused: string }> {
  let d = s.deps.gate.check(tool, input);
  if (d.action === "allow" && !s.deps.guardian) return true;
  // A PreToolUse hook's approval stands in for the prompt (also in a headless run), never for a deny rule or mode.
  if (hookApproved && (d.action === "ask" || d.headlessAsk)) return true;
  let summary = callSummary(tool, input);
  let onApproved: (() => void) | undefined;
  if (d.action === "allow") {
    // Deny rules and mode blocks came first; the Guardian reviews only what would run unasked.
    const g = await s.deps.guardian!.review({ tool, input, summary, messages: s.state.messages, signal, warn: (c, m) => s.notice(c, m), ...guardianRecords(s, call.id, tool.name, summary) });
    if (g.action === "allow") return true;
    if (g.action === "refuse") return { refused: g.reason };
    if (g.action === "deny") return g.reason;
    d = { ...d, action: "ask" };
    summary = `${summary} — ${g.note}`;
    onApproved = g.onApproved;
  }
  if (d.action === "deny") return `permission denied: ${d.reason}`;
  if (s.deps.headless) {
    return `permission denied: ${summary} needs approval (${d.reason}) and this headless run cannot ask. Allow it with --auto (-y, --permission-mode auto)${tool.kind === "write" ? ", --add-dir for paths outside the workspace" : ""}, or add "${d.suggestedRule}" to [permissions] allow`;
  }
  const diff = proposedDiff(tool.name, input, s.deps.workspace);
  const persistTo = s.deps.gate.persistTargets?.(d.suggestedRule);
  const request: ApprovalRequest = { type: "approval_request", callId: call.id, name: tool.name, input, summary, suggestedRule: d.suggestedRule, ...(diff.length ? { diff } : {}), ...(persistTo ? { persistTo } : {}) };
  const decision = await s.approvals.ask(request, signal);
  if (decision === "deny") return signal.aborted ? "cancelled" : `permission denied: the user refused ${summary}`;
  onApproved?.();
  if (decision === "session" || decision === "persist" || decision === "persist_project") s.deps.gate.grant(d.suggestedRule, decision);
  return true;
}

/** The Guardian's spend and verdicts go to the log (usage with role guardian, guardian records). */
export function guardianRecords(s: SessionCore, callId: string, name: string, summary: string): Pick<ReviewRequest, "spent" | "record"> {
  const turn = s.state.openTurn ?? Math.max(0, s.state.nextTurn - 1);
  return {
    spent: (usage, prices) => recordUsage(s, turn, usage, { role: "guardian", prices }),
    record: (v) => {
      const review = { callId, name, summary, ...v };
      s.commit({ t: "guardian", turn, at: now(), ...review });
      s.emit({ type: "guardian", ...review });
    },
  };
}

function proposedDiff(tool: string, input: unknown, workspace: string): FileDiff[] {
  try {
    return proposedFileDiffs(tool, input, workspace);
  } catch {
    return [];
  }
}
