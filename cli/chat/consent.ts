// The one-time question about usage counters, as a card in the chat (shown
// with the first ready frame when everything else would allow collecting and
// no choice is saved). Like an approval, answering is deliberate: keys go to
// the composer unless it is empty, the card has been up for a moment and the
// user paused; `y`/`n` count only when no other key follows at once; Enter on
// the empty composer takes the default (yes). The answer is saved before
// anything may be sent; a choice that cannot be saved means nothing is.
import { wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { BOUNDARY_LINES, BOUNDARY_QUESTION, CHANGE_LATER } from "../../core/telemetry/boundary.ts";
import { TelemetrySession, telemetryConfig } from "../../core/telemetry/session.ts";
import { countHost, type CountedSession } from "../../core/telemetry/counters.ts";
import { saveChoice } from "../../core/telemetry/store.ts";
import { errorMessage } from "../../core/errors.ts";
import { ARM_MS, BURST_MS } from "./approval.ts";
import type { Paint } from "./cards.ts";

const ENTER = ["\r", "\n"];

export class ConsentPrompt {
  private readonly shownAt: number;
  private lastKeyAt = 0;
  private held: { key: string; timer: ReturnType<typeof setTimeout> } | undefined;
  private armTimer: ReturnType<typeof setTimeout> | undefined;
  answered = false;

  constructor(
    private readonly redraw: () => void,
    private readonly onAnswer: (yes: boolean) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.shownAt = now();
    this.rearm();
  }

  armed(): boolean {
    const t = this.now();
    return !this.answered && t - this.shownAt >= ARM_MS && t - this.lastKeyAt >= ARM_MS;
  }

  private rearm(): void {
    clearTimeout(this.armTimer);
    this.armTimer = setTimeout(() => this.redraw(), ARM_MS + 20);
  }

  private answer(yes: boolean): void {
    if (this.answered) return;
    this.answered = true;
    clearTimeout(this.armTimer);
    this.onAnswer(yes);
  }

  /** Handle one key; false: not for the card (the composer gets it as usual). */
  key(data: string, composerEmpty: boolean, feed: (d: string) => void): boolean {
    if (this.answered) return false;
    if (this.held) {
      clearTimeout(this.held.timer);
      const k = this.held.key;
      this.held = undefined;
      if (ENTER.includes(data)) {
        this.answer(k === "y");
        return true;
      }
      // Another key right after it: the letter was the start of a message.
      feed(k);
    } else if (composerEmpty && this.armed()) {
      const k = data.toLowerCase();
      if (k === "y" || k === "n") {
        this.held = { key: k, timer: setTimeout(() => { this.held = undefined; this.answer(k === "y"); }, BURST_MS) };
        return true;
      }
      if (ENTER.includes(data)) {
        this.answer(true);
        return true;
      }
    } else if (composerEmpty && ENTER.includes(data)) {
      // Enter on an empty composer before arming: nothing to send, nothing to answer.
      this.lastKeyAt = this.now();
      this.rearm();
      return true;
    }
    this.lastKeyAt = this.now();
    this.rearm();
    return false;
  }

  /** The card's lines, wrapped to WIDTH. */
  render(p: Paint, composerEmpty: boolean, width: number): string[] {
    if (this.answered) return [];
    const how = !composerEmpty
      ? "your message stays in the input; send or clear it to answer here"
      : this.armed()
        ? "y or Enter: share · n: don't share"
        : "(typing goes to the input; y/n work after a short pause)";
    const body = [...BOUNDARY_LINES, how].flatMap((l) => wrapTextWithAnsi(l, Math.max(10, width - 2)).map((w) => p.dim(`  ${w}`)));
    return [...wrapTextWithAnsi(`${p.yellow("?")} ${p.bold(BOUNDARY_QUESTION)} [Y/n]`, width), ...body, ""];
  }
}

export interface ChatTelemetry {
  session: TelemetrySession;
  /** The one-time question, while it waits for an answer. */
  prompt?: ConsentPrompt;
}

/** Counters for this chat (and HOST's sessions as they open), and the question when it is due. SAY prints a line in the transcript. */
export function chatTelemetry(config: Record<string, unknown>, home: string, redraw: () => void, say: (line: string) => void, p: Paint, host?: { session: CountedSession; watch(l: (next: CountedSession) => void): unknown }): ChatTelemetry {
  const session = new TelemetrySession(home, telemetryConfig(config), "chat", true);
  if (host) countHost(session.counters, host);
  const t: ChatTelemetry = { session };
  if (!session.decision.ask) return t;
  t.prompt = new ConsentPrompt(redraw, (yes) => {
    t.prompt = undefined;
    try {
      saveChoice(home, yes ? "yes" : "no");
      say(p.dim(`usage counters: ${yes ? "shared, at most once a day" : "not shared"} · ${CHANGE_LATER}`));
    } catch (e) {
      say(p.yellow(`could not save your choice: nothing is sent (${errorMessage(e)})`));
    }
    session.refresh();
    redraw();
  });
  return t;
}
