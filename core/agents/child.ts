/**
 * Running one child: wait for a slot in the session tree, open the child's
 * own session (linked to the parent), hand it the task, relay its approvals
 * to the parent's front end under the child's name, and return only its
 * final answer. The child session is closed afterwards (resumable, listed).
 */
import type { ApprovalDecision, EngineEvent, EngineSession, TurnEndReason } from "../engine/types.ts";
import { errorMessage } from "../errors.ts";
import type { AgentTree } from "./scheduler.ts";
import { inputDetail, type SubagentProgress } from "./events.ts";
import { normalizeWritePaths } from "./paths.ts";

export interface ChildRequest {
  /** Shown to the user (approvals, receipts): the profile name or the task's description. */
  name: string;
  /** The self-contained job, as the parent model (or the user) wrote it. */
  task: string;
  /** Profile instructions (a runAs: subagent skill's message), when run from a profile. */
  instructions?: string;
  readOnly: boolean;
  /** Tool names (or rule families such as `Read`, `Bash(git:*)`) the child may use; empty: all it may have. */
  tools?: string[];
  /** Declared write paths (as given, relative to the workspace). */
  writePaths: string[];
  /** Model of a user-scope profile (a project profile's is ignored). */
  profileModel?: string;
  /** Absent for a subagent run straight from the CLI. */
  parent?: { id: string; callId?: string; model: string };
  /** The child's depth: the parent's plus one. */
  depth: number;
  /** The session tree's slots (set by whoever starts the child; inherited by its own children). */
  tree?: AgentTree;
}

export type OpenChild = (req: ChildRequest) => Promise<EngineSession>;

/** Where a child's approval requests and progress surface: the parent session (LiveSession.relayApproval, reportSubagent). */
export interface ApprovalRelay {
  relayApproval(request: Extract<EngineEvent, { type: "approval_request" }>, answer: (d: ApprovalDecision) => void): () => void;
  reportSubagent?(p: SubagentProgress): void;
}

export interface ChildOutcome {
  ok: boolean;
  sessionId?: string;
  reason: TurnEndReason;
  answer: string;
}

/** The first message of a child: what it is, what it may do, the task. */
export function childMessage(r: ChildRequest): string {
  const lines = [
    `You are a subagent named "${r.name}", started by another agent to do one self-contained task. Work on it with your tools, then end with a final answer: it is the only thing that goes back, so make it complete (findings, what you changed, what you could not do).`,
  ];
  if (r.readOnly) lines.push("You are read-only: you cannot change files or run commands that change anything, even if the task asks you to; report what should change instead.");
  else if (r.writePaths.length > 0) lines.push(`You may write only inside: ${r.writePaths.join(", ")}.`);
  if (r.instructions) lines.push("", r.instructions.trim());
  lines.push("", "<task>", r.task.trim(), "</task>");
  return lines.join("\n");
}

function finalAnswer(history: EngineEvent[]): string {
  for (let i = history.length - 1; i >= 0; i--) {
    const e = history[i]!;
    if (e.type === "turn_start") break;
    if (e.type === "assistant" && e.text.trim()) return e.text.trim();
  }
  return "";
}

export interface RunChildOptions {
  open: OpenChild;
  tree: AgentTree;
  workspace: string;
  signal: AbortSignal;
  relay?: ApprovalRelay;
  /** Live progress for the parent's front end (tool calls of the child). */
  progress?(message: string): void;
  /** Where started / tool / ended go when there is no parent session (`reasonix subagent run`). */
  report?(p: SubagentProgress): void;
}

export async function runChild(req: ChildRequest, o: RunChildOptions): Promise<ChildOutcome> {
  const paths = req.readOnly ? [] : normalizeWritePaths(o.workspace, req.writePaths);
  const release = await o.tree.acquire({ writer: !req.readOnly, paths }, o.signal);
  let child: EngineSession | undefined;
  const withdraw = new Map<string, () => void>();
  try {
    child = await o.open(req);
    const c = child;
    let steps = 0;
    const base = { name: req.name, sessionId: c.id, ...(req.parent?.callId ? { callId: req.parent.callId } : {}) };
    const report = (p: Omit<SubagentProgress, "name">) => (o.report ?? o.relay?.reportSubagent?.bind(o.relay))?.({ ...base, ...p });
    report({ phase: "start", ...(req.readOnly ? { readOnly: true } : {}) });
    c.subscribe((e) => {
      if (e.type === "approval_request" && o.relay) {
        const id = `${c.id}:${e.callId}`;
        const w = o.relay.relayApproval({ ...e, callId: id, summary: `[subagent ${req.name}] ${e.summary}` }, (d) => {
          withdraw.delete(e.callId);
          try {
            c.approve(e.callId, d);
          } catch {
            // The child stopped waiting (cancelled) meanwhile.
          }
        });
        withdraw.set(e.callId, w);
      } else if (e.type === "question_request") {
        // Only the session the user talks to asks them; a subagent decides, or reports the open question in its answer.
        c.answerQuestion(e.callId, { dismissed: true, reason: "a subagent cannot ask the user; decide yourself, or name the open question in your final answer" });
      } else if (e.type === "approval_resolved") {
        withdraw.get(e.callId)?.();
        withdraw.delete(e.callId);
      } else if (e.type === "tool_call") {
        o.progress?.(`${req.name}: ${e.name} (step ${++steps})`);
        report({ phase: "tool", tool: e.name, detail: inputDetail(e.input) });
      }
    });
    const onAbort = () => c.cancel();
    o.signal.addEventListener("abort", onAbort, { once: true });
    let reason: TurnEndReason;
    try {
      reason = await c.submit(childMessage(req));
    } finally {
      o.signal.removeEventListener("abort", onAbort);
    }
    const answer = finalAnswer(c.history());
    report({ phase: "end", reason });
    return { ok: reason === "done" && answer !== "", sessionId: c.id, reason, answer };
  } catch (e) {
    return { ok: false, sessionId: child?.id, reason: o.signal.aborted ? "cancelled" : "error", answer: `the subagent could not run: ${errorMessage(e)}` };
  } finally {
    for (const w of withdraw.values()) w();
    await child?.close().catch(() => {});
    release();
  }
}
