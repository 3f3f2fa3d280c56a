// The chat's renderer: finished output is written once, above a small "live"
// region (streaming tail, running tools, pending approval, editor, status
// line) that is redrawn in place. pi-tui's own TUI re-renders the whole
// transcript and clears the scrollback (ESC[3J) on every resize; here the
// transcript goes to the terminal's native scrollback exactly once, a resize
// only redraws the live region, and redraws are throttled (≤ 30/s).
import { truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";

export interface Screen {
  write(data: string): void;
  readonly columns: number;
  readonly rows: number;
}

const SYNC_ON = "\x1b[?2026h";
const SYNC_OFF = "\x1b[?2026l";
const up = (n: number) => (n > 0 ? `\x1b[${n}A` : "");
const down = (n: number) => (n > 0 ? `\x1b[${n}B` : "");

export class LiveRenderer {
  /** Bytes written to the terminal (benchmarks and tests read it). */
  bytes = 0;
  frames = 0;
  private prev: string[] = [];
  /** Row of the cursor inside the live region (always its last line after a frame). */
  private cursorRow = 0;
  private prevWidth = 0;
  private commits: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastFrameAt = 0;
  private stopped = false;

  constructor(
    private readonly screen: Screen,
    private live: (width: number) => string[],
    private readonly minFrameMs = 33,
  ) {}

  /** Queue finished lines for the scrollback; they are written with the next frame. */
  commit(lines: string[]): void {
    this.commits.push(...lines);
    this.request();
  }

  /** Ask for a frame; frames are at least minFrameMs apart. */
  request(): void {
    if (this.stopped || this.timer) return;
    const wait = Math.max(0, this.minFrameMs - (performance.now() - this.lastFrameAt));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.frame();
    }, wait);
  }

  /**
   * The terminal changed size. Terminals that reflow (tmux, most emulators)
   * re-wrap the old live lines at the new width: move up over as many rows as
   * they now take and draw the live region again. Nothing above it is touched
   * and the scrollback is never cleared.
   */
  resized(): void {
    const width = this.screen.columns;
    if (width !== this.prevWidth && this.prevWidth > 0) {
      let rows = 0;
      for (let i = 0; i < this.prev.length; i++) rows += Math.max(1, Math.ceil(visibleWidth(this.prev[i]!) / width));
      // The cursor sits on the last live line; it starts at most at the screen's top.
      this.cursorRow = Math.min(Math.max(0, rows - 1), this.screen.rows - 1);
      this.prev = this.prev.map(() => "\u0000"); // force every live line to be drawn again
    }
    this.request();
  }

  /** Redraw the live region from scratch (Ctrl-L). */
  redraw(): void {
    this.prev = this.prev.map(() => "\u0000");
    this.request();
  }

  /** Draw now (tests and shutdown). */
  frame(): void {
    if (this.stopped) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.lastFrameAt = performance.now();
    // One column short of the edge: a full-width line leaves the cursor in the
    // terminal's pending-wrap state, where erase sequences behave differently.
    const width = Math.max(10, this.screen.columns - 1);
    const maxRows = Math.max(3, this.screen.rows - 1);
    let next = this.live(width).map((l) => (visibleWidth(l) > width ? truncateToWidth(l, width, "") : l));
    if (next.length > maxRows) next = next.slice(next.length - maxRows);
    let out = "";
    if (this.commits.length > 0) {
      // Finished lines go where the live region starts; the live region follows.
      out += `${up(this.cursorRow)}\r\x1b[J`;
      for (const l of this.commits) out += `${l}\r\n`;
      this.commits = [];
      out += next.map((l) => `\x1b[2K${l}`).join("\r\n");
    } else {
      let first = 0;
      while (first < next.length && first < this.prev.length && next[first] === this.prev[first]) first++;
      if (first === next.length && next.length === this.prev.length) {
        this.prevWidth = width;
        return;
      }
      let last = next.length - 1;
      if (next.length === this.prev.length) while (last > first && next[last] === this.prev[last]) last--;
      if (first >= next.length) first = Math.max(0, next.length - 1); // only lines went away
      // New rows below the cursor are made with \r\n (which scrolls at the bottom edge).
      first = Math.min(first, this.cursorRow);
      out += `${up(this.cursorRow - first)}\r`;
      for (let i = first; i <= last; i++) out += `${i > first ? "\r\n" : ""}\x1b[2K${next[i]}`;
      if (last < next.length - 1) out += down(next.length - 1 - last);
      // Fewer lines than before: clear what is left below (the cursor is never at the edge column).
      else if (next.length < this.prev.length) out += "\x1b[J";
    }
    this.prev = next;
    this.cursorRow = Math.max(0, next.length - 1);
    this.prevWidth = width;
    this.write(SYNC_ON + out + SYNC_OFF);
    this.frames++;
  }

  /** Leave the live region on screen and put the cursor below it. */
  stop(finalLines?: string[]): void {
    if (finalLines) this.live = () => finalLines;
    this.frame();
    this.stopped = true;
    this.write("\r\n");
  }

  private write(s: string): void {
    this.bytes += Buffer.byteLength(s);
    this.screen.write(s);
  }
}
