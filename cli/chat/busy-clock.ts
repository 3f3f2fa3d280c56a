// The status line's "working Ns" clock: started when a turn starts (here or
// from the browser UI), redrawing once a second until the work ends.
import { t } from "../../core/protocol/i18n/index.ts";

export class BusyClock {
  /** When the current turn started; 0 for work a slash command started (/compact): no clock for it. */
  private since = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly redraw: () => void) {}

  start(): void {
    this.since = Date.now();
    this.timer ??= setInterval(this.redraw, 1000);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.since = 0;
  }

  /** The status line's busy field, or undefined when idle. */
  label(busy: boolean): string | undefined {
    if (!busy) return undefined;
    return `${this.since ? t("status.workingFor", { s: Math.floor((Date.now() - this.since) / 1000) }) : t("status.working")} · ${t("status.escCancels")}`;
  }
}
