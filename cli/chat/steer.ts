// Steering from the full-screen chat: Enter while a turn runs hands the text
// to the session host (core/host, as every front end steers), which adds it
// at the turn's next model step.
// The line shows in the live area with its disposition and moves into the
// scrollback at the next step boundary, so a streaming answer is never cut.
import { truncateToWidth } from "@mariozechner/pi-tui";
import type { EngineEvent, SteerDisposition } from "../../core/engine/types.ts";
import type { SessionHost } from "../../core/host/session-host.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Paint } from "./cards.ts";
import { cleanText } from "./sanitize.ts";

const label: Record<SteerDisposition | "started_turn", string> = {
  steer_accepted: "steering · sent to the running turn",
  queued_followup: "steering · the turn had ended: it goes with your next message",
  // The turn was finishing (it had read guidance for the last time): the text is the next turn's prompt.
  started_turn: "steering · the turn was ending: sent as your next message",
};

/** Steer the running turn with `text`; the plain words to show for it (line mode uses them as they are). */
export function steerNow(host: SessionHost, text: string): { ok: true; shown: string; note: string } | { ok: false; error: string } {
  try {
    const d = host.steer(text, { startIfIdle: true });
    return { ok: true, shown: cleanText(text).replace(/\s+/g, " "), note: `(${label[d]})` };
  } catch (e) {
    return { ok: false, error: `not sent: ${errorMessage(e)}` };
  }
}

export class SteerLines {
  private pending: string[] = [];

  constructor(private readonly p: Paint) {}

  /** Give `text` to the running turn; the line to show (or the error). */
  send(host: SessionHost, text: string): void {
    const r = steerNow(host, text);
    this.pending.push(r.ok ? `${this.p.cyan("» ")}${r.shown}  ${this.p.dim(r.note)}` : this.p.red(r.error));
  }

  live(width: number): string[] {
    return this.pending.map((l) => truncateToWidth(l, width, "…"));
  }

  /** At a step boundary (a complete message, a tool result, the turn's end) the lines join the scrollback. */
  take(e: EngineEvent): string[] {
    if (this.pending.length === 0) return [];
    if (e.type !== "assistant" && e.type !== "tool_result" && e.type !== "turn_end") return [];
    return this.pending.splice(0);
  }
}
