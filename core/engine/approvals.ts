/**
 * The approval desk: the approval requests of a session that wait for the
 * user's answer. Every approval — a tool call's, the planner's, a relayed
 * subagent's — goes through here: one wait per request, answered by
 * approve(), by the turn's cancellation (deny) or by the turn's end (deny).
 * The abort listener a wait adds is removed when the wait ends, so a long
 * turn of many approvals leaves nothing behind on its signal.
 *
 * The model's questions to the user (the `ask` tool) wait here too, the same
 * way: answered by answerQuestion(), dismissed by the turn's cancellation or
 * end. They are not permissions, so no mode answers them.
 */
import { ReasonixError } from "../errors.ts";
import { answerProblem, normalAnswer } from "../protocol/question.ts";
import type { ApprovalDecision, EngineEvent, Question, QuestionAnswer } from "./types.ts";

export type ApprovalRequest = Extract<EngineEvent, { type: "approval_request" }>;
export type QuestionRequest = Extract<EngineEvent, { type: "question_request" }>;

const DISMISSED: QuestionAnswer = { dismissed: true };

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

  private readonly questions = new Map<string, { request: QuestionRequest; resolve(a: QuestionAnswer): void }>();

  /** Show the model's question and wait for the user's answer; a cancelled turn dismisses it. */
  async question(q: Question, signal: AbortSignal): Promise<QuestionAnswer> {
    if (signal.aborted) return DISMISSED;
    const request: QuestionRequest = { type: "question_request", ...q };
    let onAbort: (() => void) | undefined;
    const answer = await new Promise<QuestionAnswer>((resolve) => {
      this.questions.set(q.callId, { request, resolve });
      onAbort = () => resolve(DISMISSED);
      signal.addEventListener("abort", onAbort, { once: true });
      this.emit(request);
    });
    signal.removeEventListener("abort", onAbort!);
    this.questions.delete(q.callId);
    this.emit({ type: "question_resolved", callId: q.callId, answer });
    return answer;
  }

  /** The user's answer to a pending question; one that does not fit it throws (the question keeps waiting). */
  answerQuestion(callId: string, answer: QuestionAnswer): void {
    const w = this.questions.get(callId);
    if (!w) throw new ReasonixError("no_pending_question", `no pending question for call ${callId}`);
    const problem = answerProblem(w.request, answer);
    if (problem) throw new ReasonixError("usage", `that answer does not fit the question: ${problem}`);
    w.resolve(normalAnswer(w.request, answer));
  }

  /** Unanswered requests and questions, for history(). */
  pending(): EngineEvent[] {
    return [...this.requests.values(), ...[...this.questions.values()].map((w) => w.request)];
  }

  /** The turn ended: whatever still waits is denied (questions: dismissed). */
  denyAll(): void {
    for (const resolve of this.answers.values()) resolve("deny");
    this.answers.clear();
    this.requests.clear();
    for (const w of this.questions.values()) w.resolve(DISMISSED);
    this.questions.clear();
  }
}
