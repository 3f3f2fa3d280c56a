// Line mode's rendering of engine events: plain lines, from the folded
// transcript's steps (core/protocol/fold.ts). No escape sequences, no cursor movement.
import type { EngineEvent } from "../../core/engine/types.ts";
import { emptyTranscript, fold, type Step, type ToolBlock } from "../../core/protocol/fold.ts";
import { callSummary, changeLines, decisionText, plainPaint, savedWhere, type PendingApproval } from "./cards.ts";
import { approvalBody } from "./approval.ts";
import { questionHelp, type PendingQuestion } from "./question.ts";
import { answerText } from "../../core/protocol/question.ts";
import { scrub } from "./sanitize.ts";
import { goalEventLine } from "../../core/goal/format.ts";
import { guardianLine } from "../../core/guardian/format.ts";
import { subagentLine } from "../../core/agents/events.ts";

export interface LineIo {
  out(s: string): void;
  width(): number;
  /** Input has ended: nobody can answer an approval. */
  unanswerable(): boolean;
  deny(callId: string): void;
  /** Dismiss a question nobody can answer. */
  dismiss?(callId: string): void;
  /** The status line after a turn. */
  status(): string;
}

export class LineEvents {
  readonly t = emptyTranscript();
  /** Approval requests not answered yet, oldest first. */
  approvals: PendingApproval[] = [];
  /** The model's questions not answered yet, oldest first. */
  questions: PendingQuestion[] = [];
  private atLineStart = true;

  constructor(private readonly io: LineIo) {}

  println(s = ""): void {
    this.io.out(`${s}\n`);
  }

  breakLine(): void {
    if (!this.atLineStart) this.println();
    this.atLineStart = true;
  }

  private onTool(b: ToolBlock, e: Extract<Step, { op: "tool" }>["event"]): void {
    switch (e.type) {
      case "tool_call":
        this.breakLine();
        this.println(`* ${e.name} ${callSummary(e.name, e.input)}`);
        break;
      case "approval_request":
        if (this.io.unanswerable()) {
          this.println(`? ${e.summary}: refused (input has ended, nobody can answer)`);
          return this.io.deny(e.callId);
        }
        this.breakLine();
        this.approvals.push(e);
        // The whole command or change, then the answers (a whole line each; "always" ones name their file).
        for (const l of approvalBody(plainPaint, e, this.io.width())) this.println(l);
        this.println(`? allow ${e.summary}: [y] once, [a] this session (rule ${e.suggestedRule}),${e.persistTo ? ` [p] always (adds ${e.persistTo.user.rule} to ${e.persistTo.user.path}), [project] always in this project (adds ${e.persistTo.project.rule} to ${e.persistTo.project.path}),` : ""} [n] deny`);
        break;
      case "approval_resolved": {
        const saved = savedWhere(this.approvals.find((a) => a.callId === e.callId), e.decision);
        this.approvals = this.approvals.filter((a) => a.callId !== e.callId);
        this.println(`> ${decisionText[e.decision]}${saved ? ` (${saved})` : ""}`);
        break;
      }
      case "question_request": {
        const q: PendingQuestion = { callId: e.callId, question: e.question, options: e.options, multi: e.multi, allowText: e.allowText };
        this.breakLine();
        this.println(`? ${q.question}`);
        if (this.io.unanswerable()) {
          this.println("  dismissed (input has ended, nobody can answer)");
          return this.io.dismiss?.(e.callId);
        }
        this.questions.push(q);
        q.options.forEach((o, i) => this.println(`  ${i + 1}) ${o.label}${o.description ? `  (${o.description})` : ""}`));
        this.println(`  ${questionHelp(q)}`);
        break;
      }
      case "question_resolved":
        this.questions = this.questions.filter((q) => q.callId !== e.callId);
        this.println(`> ${answerText(e.answer)}`);
        break;
      case "tool_result":
        this.println(`  ${e.ok ? "ok" : "failed"}: ${e.ok ? (e.receipt ?? `${e.name} done`) : e.output.split("\n")[0]}`);
        if (e.ok && b.input !== undefined) for (const l of changeLines(plainPaint, b.name, b.input, e.diff, this.io.width())) this.println(l);
        break;
    }
  }
  private onNotice(s: Extract<Step, { op: "notice" }>): void {
    const e = s.block.event;
    switch (e.type) {
      case "retry":
        this.breakLine();
        this.println(`(retrying in ${Math.round(e.delayMs / 100) / 10}s, attempt ${e.attempt}: ${e.reason})`);
        break;
      case "waiting":
        this.breakLine();
        this.println(`(no reply from the model for ${e.seconds}s; retried at ${e.timeoutSeconds}s)`);
        break;
      case "warning":
        this.breakLine();
        this.println(`warning: ${e.message}`);
        break;
      case "guardian":
        this.breakLine();
        this.println(guardianLine(e));
        break;
      case "subagent":
        this.breakLine();
        this.println(subagentLine(e));
        break;
      case "plan":
        if (s.asAnswer) break;
        this.breakLine();
        this.println(`plan from the planner (${e.route.replace("_", " ")}):\n${e.text}`);
        break;
      case "goal": {
        const line = goalEventLine(e);
        if (line) {
          this.breakLine();
          this.println(line);
        }
        break;
      }
      case "compaction":
        this.println(`(compacted ${e.removedMessages} earlier messages)`);
        break;
      case "todo":
        for (const i of e.items) this.println(`  [${i.status === "completed" ? "x" : i.status === "in_progress" ? ">" : " "}] ${i.content}`);
        break;
      case "error":
        this.breakLine();
        this.println(`error: ${e.message}`);
        break;
    }
  }
  onEvent(raw: EngineEvent): void {
    const s = fold(this.t, scrub(raw));
    switch (s.op) {
      case "text":
        this.io.out(s.text);
        this.atLineStart = s.text.endsWith("\n");
        break;
      case "answer":
        this.breakLine();
        break;
      case "tool":
        this.onTool(s.block, s.event);
        break;
      case "discard":
        this.breakLine();
        this.println(`(that attempt failed: ${s.event.reason}; discard the partial answer above)`);
        break;
      case "notice":
        this.onNotice(s);
        break;
      case "end":
        this.breakLine();
        this.approvals = [];
        if (s.block.reason !== "done") this.println(`(turn ended: ${s.block.reason}${s.block.error ? ` - ${s.block.error}` : ""})`);
        this.println(`[${this.io.status()}]`);
        break;
      default:
        break;
    }
  }
}
