// The terminal chat's question card (the model's `ask`). Like the approval
// prompt, answering is a deliberate act: the composer keeps the focus and
// every key typed into it stays text; the card takes keys only from an empty
// composer, once it has been on screen for a moment and the user paused.
// ↑↓ or j/k move, Space toggles (several answers), Enter submits, 1–9 pick
// (a digit another key follows at once was text), Esc dismisses. Writing an
// answer of one's own is a field inside the card, opened on purpose (its row
// and Enter, or Space): only then do typed keys go to it.
import { truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import type { QuestionAnswer } from "../../core/engine/types.ts";
import { ArmedCard, BURST_MS, DIGIT, ENTER } from "./arming.ts";
import type { Paint } from "./cards.ts";

/** A question_request still waiting for an answer. */
export interface PendingQuestion {
  callId: string;
  question: string;
  options: { label: string; description?: string }[];
  multi: boolean;
  allowText: boolean;
}

export interface QuestionKeys {
  composerEmpty: boolean;
  /** Give DATA to the composer as typed text. */
  feed(data: string): void;
  answer(a: QuestionAnswer): void;
}

const UP = ["\x1b[A", "\x1bOA", "k"];
const DOWN = ["\x1b[B", "\x1bOB", "j"];
const ESC = "\x1b";
const BACKSPACE = ["\x7f", "\b"];

/** State of the card for the question at the head of the queue. */
export class QuestionPrompt extends ArmedCard<PendingQuestion, QuestionKeys> {
  private selected: number | undefined;
  private readonly picked = new Set<number>();
  private text = "";
  private editing = false;

  protected reset(): void {
    this.selected = undefined;
    this.picked.clear();
    this.text = "";
    this.editing = false;
  }

  /** The own-answer field has the keys. */
  get writing(): boolean {
    return this.editing;
  }

  /** Rows of the card: the options, then the own-answer row when allowed. */
  private rows(q: PendingQuestion): number {
    return q.options.length + (q.allowText ? 1 : 0);
  }

  /** Handle one key while Q is pending; false: not for the card (the caller goes on as usual). */
  override key(data: string, q: PendingQuestion, ctx: QuestionKeys): boolean {
    this.sync(q);
    return this.editing ? this.write(data, q, ctx) : super.key(data, q, ctx);
  }

  private write(data: string, q: PendingQuestion, ctx: QuestionKeys): boolean {
    // Ctrl-C keeps its meaning (clear, cancel the turn, exit); it leaves the field.
    if (data === "\x03") {
      this.editing = false;
      return false;
    }
    if (data === ESC) this.editing = false;
    else if (ENTER.includes(data)) this.submit(q, ctx);
    else if (BACKSPACE.includes(data)) this.text = [...this.text].slice(0, -1).join("");
    // Printable text only (a paste may bring several characters); other control sequences are ignored.
    else if (!/[\x00-\x1f\x7f]/.test(data)) this.text += data;
    this.redraw();
    return true;
  }

  private answerOf(q: PendingQuestion): QuestionAnswer | undefined {
    const choices = q.options.filter((_, i) => this.picked.has(i)).map((o) => o.label);
    const text = this.text.trim();
    if (choices.length === 0 && !text) return undefined;
    return text ? { choices, text } : { choices };
  }

  private submit(q: PendingQuestion, ctx: QuestionKeys): void {
    const a = this.answerOf(q);
    if (a) ctx.answer(a);
  }

  private pick(i: number, q: PendingQuestion, ctx: QuestionKeys): void {
    if (q.multi) {
      if (this.picked.has(i)) this.picked.delete(i);
      else this.picked.add(i);
      this.redraw();
    } else ctx.answer({ choices: [q.options[i]!.label] });
  }

  /** What a card key does (after its burst window, or at once before Enter). */
  private act(k: string, q: PendingQuestion, ctx: QuestionKeys): void {
    const n = this.rows(q);
    if (UP.includes(k) || DOWN.includes(k)) {
      const down = DOWN.includes(k);
      const cur = this.selected;
      this.selected = cur === undefined ? (down ? 0 : n - 1) : (cur + (down ? 1 : n - 1)) % n;
    } else if (k === " ") {
      if (q.allowText && this.selected === q.options.length) this.editing = true;
      else if (q.multi && this.selected !== undefined) this.pick(this.selected, q, ctx);
    } else if (DIGIT.test(k)) this.pick(Number(k) - 1, q, ctx);
    this.redraw();
  }

  protected take(data: string, q: PendingQuestion, ctx: QuestionKeys, wasArmed: boolean): boolean {
    if (this.held) {
      clearTimeout(this.held.timer);
      const k = this.held.key;
      this.held = undefined;
      // Enter right after a card key confirms it; any other key at once: the held key was the start of text.
      if (!ENTER.includes(data)) {
        ctx.feed(k);
        return false;
      }
      this.act(k, q, ctx);
      if (DIGIT.test(k) && !q.multi) return true;
    }
    // Esc dismisses: it is never text, but a composer with text keeps its own Esc.
    if (data === ESC && ctx.composerEmpty) {
      ctx.answer({ dismissed: true });
      return true;
    }
    const early = this.notYet(data, ctx.composerEmpty, wasArmed);
    if (early !== undefined) return early;
    if (ENTER.includes(data)) {
      const onText = q.allowText && this.selected === q.options.length;
      // A question of words alone: Enter opens the field.
      if (onText || (q.options.length === 0 && this.selected === undefined)) this.editing = true;
      else if (q.multi) this.submit(q, ctx);
      else if (this.selected !== undefined) this.pick(this.selected, q, ctx);
      this.redraw();
      return true;
    }
    // Arrows are never text: at once. Letters, Space and digits wait out the burst window (a key right after them: text).
    if (UP.slice(0, 2).includes(data) || DOWN.slice(0, 2).includes(data)) {
      this.act(data, q, ctx);
      return true;
    }
    const cardKey = data === "j" || data === "k" || (data === " " && (q.multi || q.allowText)) || (DIGIT.test(data) && Number(data) <= q.options.length);
    if (!cardKey) return false;
    if (DIGIT.test(data)) this.selected = Number(data) - 1;
    this.held = {
      key: data,
      timer: setTimeout(() => {
        this.held = undefined;
        if (this.arming.current === q.callId) this.act(data, q, ctx);
      }, BURST_MS),
    };
    this.redraw();
    return true;
  }

  /** The card's lines. */
  render(p: Paint, q: PendingQuestion, width: number, composerEmpty: boolean, more: number): string[] {
    this.sync(q);
    const out = wrapTextWithAnsi(`${p.yellow("?")} ${p.bold(q.question)}`, Math.max(10, width - 2)).map((r, k) => (k === 0 ? r : `  ${r}`));
    q.options.forEach((o, i) => {
      const sel = this.selected === i;
      const box = q.multi ? (this.picked.has(i) ? "[x] " : "[ ] ") : "";
      const label = sel ? p.bold(o.label) : o.label;
      out.push(truncateToWidth(`${sel ? p.cyan("›") : " "} ${i + 1}. ${box}${label}${o.description ? p.dim(` — ${o.description}`) : ""}`, width, "…"));
    });
    if (q.allowText) {
      const sel = this.selected === q.options.length;
      const field = this.editing ? `${this.text}${p.cyan("▏")}` : this.text ? this.text : p.dim("(Enter to write)");
      out.push(truncateToWidth(`${sel ? p.cyan("›") : " "} ✎ ${q.options.length ? "Other: " : "Your answer: "}${field}`, width, "…"));
    }
    if (this.editing) out.push(p.dim("  typing goes to the answer · Enter submits · Esc back to the choices"));
    else if (!composerEmpty) out.push(p.dim("  your message stays in the input; send or clear it (Ctrl-C) to answer here"));
    else if (this.armed()) {
      const keys = q.options.length === 0 ? "Enter to write" : q.multi ? `↑↓/j k move · Space toggles · Enter submits · 1–${q.options.length} toggle` : `↑↓/j k then Enter, or 1–${q.options.length}`;
      out.push(p.dim(`  ${keys} · Esc dismisses`));
    } else out.push(p.dim("  (typing goes to the input; answer keys work after a short pause)"));
    if (more > 0) out.push(p.dim(`  (${more} more waiting)`));
    return out;
  }
}

/** Line mode: how to answer Q, one line. */
export function questionHelp(q: PendingQuestion): string {
  const nums = q.options.length ? (q.multi ? "numbers (e.g. 1,3)" : "a number") : "";
  const words = q.allowText ? (nums ? " or your own words" : "your answer") : "";
  return `answer with ${nums}${words}; - dismisses`;
}

/** Line mode: a typed line as the answer to Q ("1", "1,3", own words, "-" dismisses). */
export function answerFromLine(q: PendingQuestion, line: string): QuestionAnswer {
  const t = line.trim();
  if (t === "-") return { dismissed: true };
  if (q.options.length && /^\d+(\s*,\s*\d+)*$/.test(t)) {
    const picks = t.split(",").map((n) => Number(n.trim()));
    return { choices: picks.map((n) => q.options[n - 1]?.label ?? `#${n}`) };
  }
  return { choices: [], text: t };
}
