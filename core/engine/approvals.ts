/**
 * The approval desk: the approval requests of a session that wait for the
 * user's answer. Every approval — a tool call's, the planner's, a relayed
 * subagent's — goes through here: one wait per request, answered by
 * approve(), by the turn's cancellation (deny) or by the turn's end (deny).
 * The abort listener a wait adds is removed when the wait ends, so a long
 * turn of many approvals leaves nothing behind on its signal.
 */
import { ReasonixError } from "../errors.ts";
import type { ApprovalDecision, EngineEvent } from "./types.ts";

export type ApprovalRequest = Extract<EngineEvent, { type: "approval_request" }>;

export class ApprovalDesk {
  private readonly answers = new Map<string, (d: ApprovalDecision) => void>();
  /** approval_request events still unanswered, for history(). */
  private readonly requests = new Map<string, EngineEvent>();

  constructor(private readonly emit: (e: EngineEvent) => void) {}

  /** Show the request and wait for its answer; a cancelled turn answers "deny". */
  async ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    // Cancelled while the call was on its way here (a PreToolUse hook, the
    // Guardian's review): an abort listener would never fire, so nobody is asked.
    if (signal.aborted) return "deny";
    const id = request.callId;
    let onAbort: (() => void) | undefined;
    const decision = await new Promise<ApprovalDecision>((resolve) => {
      this.answers.set(id, resolve);
      onAbort = () => resolve("deny");
      signal.addEventListener("abort", onAbort, { once: true });
      this.requests.set(id, request);
      this.emit(request);
    });
    signal.removeEventListener("abort", onAbort!);
    this.answers.delete(id);
    this.requests.delete(id);
    this.emit({ type: "approval_resolved", callId: id, decision });
    return decision;
  }

  /**
   * Surface an approval asked elsewhere (a subagent's) as this session's own:
   * `answer` gets the decision. Returns a function that withdraws the request unanswered.
   */
  relay(request: ApprovalRequest, answer: (d: ApprovalDecision) => void): () => void {
    const id = request.callId;
    const finish = (d: ApprovalDecision, tell: boolean) => {
      if (!this.answers.has(id)) return;
      this.answers.delete(id);
      this.requests.delete(id);
      this.emit({ type: "approval_resolved", callId: id, decision: d });
      if (tell) answer(d);
    };
    this.answers.set(id, (d) => finish(d, true));
    this.requests.set(id, request);
    this.emit(request);
    return () => finish("deny", false);
  }

  /** The user's answer to a pending request. */
  answer(callId: string, decision: ApprovalDecision): void {
    const resolve = this.answers.get(callId);
    if (!resolve) throw new ReasonixError("no_pending_approval", `no pending approval for call ${callId}`);
    resolve(decision);
  }

  /** Unanswered requests, for history(). */
  pending(): EngineEvent[] {
    return [...this.requests.values()];
  }

  /** The turn ended: whatever still waits is denied. */
  denyAll(): void {
    for (const resolve of this.answers.values()) resolve("deny");
    this.answers.clear();
    this.requests.clear();
  }
}
