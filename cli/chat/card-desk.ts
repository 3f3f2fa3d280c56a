// The one card the chat shows at a time above the composer: the oldest
// pending approval, else the oldest question from the model (`ask`). Where
// it goes in the live area and which keys it takes.
import { matchesKey } from "@mariozechner/pi-tui";
import type { ApprovalDecision, QuestionAnswer } from "../../core/engine/types.ts";
import { errorMessage } from "../../core/errors.ts";
import { approvalBody, ApprovalPrompt } from "./approval.ts";
import type { PendingApproval } from "./cards.ts";
import type { Paint } from "./cards.ts";
import { QuestionPrompt, type PendingQuestion } from "./question.ts";
import type { Transcript } from "./transcript.ts";

export interface CardAnswers {
  approve: (callId: string, decision: ApprovalDecision) => void;
  answer: (callId: string, a: QuestionAnswer) => void;
  /** After a refusal (the turn ends: the next message is the place to say why). */
  denied: () => void;
}

export class CardDesk {
  readonly approval: ApprovalPrompt;
  readonly question: QuestionPrompt;
  /** The card last placed and the width it was drawn at. */
  private drawn: { id: string; width: number } | undefined;

  constructor(
    private readonly paint: Paint,
    private readonly transcript: Transcript,
    request: () => void,
    private readonly to: CardAnswers,
  ) {
    this.approval = new ApprovalPrompt(request);
    this.question = new QuestionPrompt(request);
  }

  /** The card on screen: the oldest approval, else (one card at a time) the oldest question. */
  private head(): { pending?: PendingApproval; asked?: PendingQuestion } {
    const pending = this.transcript.approvals[0];
    return pending ? { pending } : { asked: this.transcript.questions[0] };
  }

  /**
   * Puts the card at the end of `out` (what else is live keeps only the rows
   * the card and the `below` rows leave); the approval's body scrolls when longer.
   */
  place(out: string[], width: number, rows: number, belowRows: number, composerEmpty: boolean, hold = false): void {
    const t = this.transcript;
    const { pending, asked } = this.head();
    this.approval.sync(pending);
    this.question.sync(asked);
    // While a resize left the card's first rows in the scrollback (`hold`), the card keeps
    // the width it had, so those rows stay what they are (the renderer cuts wider rows at the edge).
    const id = pending?.callId ?? asked?.callId;
    const w = hold && this.drawn && this.drawn.id === id ? this.drawn.width : width;
    this.drawn = id === undefined ? undefined : { id, width: w };
    const card = pending
      ? this.approval.render(this.paint, pending, w, rows - 2 - belowRows, composerEmpty, t.approvals.length - 1)
      : asked && this.question.render(this.paint, asked, w, composerEmpty, t.questions.length - 1);
    if (!card) return;
    out.splice(0, Math.max(0, out.length - Math.max(0, rows - 2 - belowRows - card.length)));
    out.push("", ...card);
  }

  /** A key for the card on screen; true when the card took it (typing meant for the composer never answers). */
  key(data: string, w: number, composerEmpty: boolean, feed: (d: string) => void): boolean {
    const t = this.transcript;
    const { to } = this;
    const { pending, asked } = this.head();
    const guard = (f: () => void) => {
      try {
        f();
      } catch (e) {
        t.info([this.paint.red(errorMessage(e))]);
      }
    };
    if (asked) return this.question.key(data, asked, { composerEmpty, feed, answer: (a) => guard(() => to.answer(asked.callId, a)) });
    if (!pending) return false;
    if (matchesKey(data, "ctrl+o")) {
      // The whole command or change, into the scrollback above.
      t.info([this.paint.dim(`── ${pending.summary}`), ...approvalBody(this.paint, pending, w)]);
      return true;
    }
    return this.approval.key(data, pending, {
      composerEmpty,
      feed,
      answer: (decision) => {
        guard(() => to.approve(pending.callId, decision));
        if (decision === "deny") to.denied();
      },
    });
  }
}
