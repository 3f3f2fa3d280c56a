// The chat's renderer: finished output is written once, above a small "live"
// region (streaming tail, running tools, pending approval, editor, status
// line) that is redrawn in place. pi-tui's own TUI re-renders the whole
// transcript and clears the scrollback (ESC[3J) on every resize; here the
// transcript goes to the terminal's native scrollback exactly once, a resize
// only redraws the live region, and redraws are throttled (≤ 30/s).
import { truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { lineWidth } from "./width.ts";

export interface Screen {
  write(data: string): void;
  readonly columns: number;
  readonly rows: number;
  /** Whether the terminal re-wraps long lines when it gets narrower (default: yes; see terminalReflows). */
  readonly reflows?: boolean;
}

/** xterm and rxvt cut lines on a resize; tmux, screen and the other emulators re-wrap them. */
export function terminalReflows(env: Record<string, string | undefined>): boolean {
  if (env.TMUX || env.STY) return true;
  return !env.XTERM_VERSION && !/^rxvt/.test(env.TERM ?? "");
}

const SYNC_ON = "\x1b[?2026h";
const SYNC_OFF = "\x1b[?2026l";
const up = (n: number) => (n > 0 ? `\x1b[${n}A` : "");
const down = (n: number) => (n > 0 ? `\x1b[${n}B` : "");

const ESC = /\x1b(?:\[[0-9;?]*[ -\/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|_[^\x07]*\x07)/g;

/**
 * Bytes that turn row text `was` into `now` with the cursor somewhere on that
 * row: from the first differing character when they share a long prefix
 * (re-emitting the prefix's escape sequences so the style there is the same),
 * else the whole line.
 */
export function rewriteLine(was: string, now: string): string {
  let n = 0;
  const max = Math.min(was.length, now.length);
  while (n < max && was.charCodeAt(n) === now.charCodeAt(n)) n++;
  // Never cut inside an escape sequence or a surrogate pair.
  let cut = n;
  for (const m of now.matchAll(ESC)) {
    if (m.index! >= n) break;
    if (m.index! + m[0].length > n) cut = m.index!;
  }
  if (cut > 0 && cut < now.length && (now.charCodeAt(cut) & 0xfc00) === 0xdc00) cut--;
  const prefix = now.slice(0, cut);
  const col = lineWidth(prefix);
  if (col < 8) return was === "" ? `\r${now}` : `\r\x1b[2K${now}`;
  const styles = prefix.match(ESC)?.join("") ?? "";
  return `\x1b[${col + 1}G${styles}${now.slice(cut)}${cut < was.length || now.length < was.length ? "\x1b[K" : ""}`;
}

/** How many lines `a` and `b` share from the start. */
function shared(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

export class LiveRenderer {
  /** Bytes written to the terminal (benchmarks and tests read it). */
  bytes = 0;
  frames = 0;
  private prev: string[] = [];
  /** The lines of `prev` as the live region gave them (before cutting to the width). */
  private prevRaw: string[] = [];
  /** Row of the cursor inside the live region (always its last line after a frame). */
  private cursorRow = 0;
  /** The screen row of the live region's top, at least (where the chat started on the screen is not known). */
  private top = 0;
  /**
   * The first lines of the live region that a resize pushed off the top of
   * the screen into the terminal's scrollback (see resizedFrom): while the
   * live region still starts with them they are not drawn again, and once
   * committed they are not written again.
   */
  private gone: string[] = [];
  private prevColumns = 0;
  private prevRows = 0;
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

  /** The terminal changed size: the next frame redraws the live region (see reflowed). */
  resized(): void {
    this.request();
  }

  /**
   * Rows of the live region a resize pushed into the scrollback (the cursor
   * stays at the start of its last line; finished output is never erased).
   * A shorter screen: the terminal drops the empty rows below the cursor,
   * then pushes rows off the top. A narrower one, where the terminal re-wraps
   * (tmux and most emulators; xterm and rxvt cut, see terminalReflows): each
   * line wider than the new width takes more rows, the rows at and below the
   * cursor keep their place, and what no longer fits above goes to the
   * scrollback. Lines whole or partly there cannot be taken back: they become
   * `gone` (never drawn or written again, see frame) and the redraw starts
   * below them; the rest of the old region is redrawn from its re-wrapped top.
   * The cursor's row is known only as a lower bound, so more lines may count
   * as gone than went: those stay on screen above the region, also shown once.
   */
  private resizedFrom(prevColumns: number, prevRows: number): void {
    const { columns: cols, rows } = this.screen;
    const n = this.prev.length;
    if (n === 0) {
      this.top = Math.min(this.top, rows - 1);
      return;
    }
    const y0 = Math.min(this.top + this.cursorRow, prevRows - 1);
    // The shorter screen: one row per line (every line fits the old width).
    const y1 = Math.min(y0, rows - 1);
    const first = Math.max(0, this.cursorRow - y1);
    const h = this.prev.map((l) => (cols !== prevColumns && this.screen.reflows !== false ? Math.max(1, Math.ceil(lineWidth(l) / cols)) : 1));
    // The last line's own extra rows are below the cursor: the cursor moves up by them.
    const y = Math.max(0, y1 - (h[n - 1]! - 1));
    let above = 0;
    for (let i = first; i < n - 1; i++) above += h[i]!;
    const pushed = Math.max(0, above - y);
    let k = first;
    let off = 0;
    while (off < pushed) off += h[k++]!;
    // Only lines drawn whole can be matched later (a cut one is in the scrollback cut).
    let whole = 0;
    while (whole < k && this.prev[whole] === this.prevRaw[whole]) whole++;
    this.gone.push(...this.prevRaw.slice(0, whole));
    this.cursorRow = above - off;
    this.top = y - this.cursorRow;
    this.full = true;
  }

  /** Whether the first lines of the live region are in the scrollback (a card drawn there keeps its width so they stay the same). */
  get holding(): boolean {
    return this.gone.length > 0;
  }

  /** Clear the visible screen (never the scrollback) and draw the live region at its top (/clear). */
  clearScreen(): void {
    this.write("\x1b[H\x1b[2J");
    this.prev = [];
    this.prevRaw = [];
    this.gone = [];
    this.cursorRow = 0;
    this.top = 0;
    this.request();
  }

  /** Redraw the live region from scratch (Ctrl-L). */
  redraw(): void {
    this.full = true;
    this.request();
  }

  private full = false;

  private overlayDraw: ((width: number, height: number) => string[]) | undefined;
  private inAlt = false;

  /**
   * Draw `draw` on the terminal's alternate screen instead of the live region
   * (a full-screen view); undefined goes back to the chat as it was left.
   * Finished lines committed meanwhile wait and are written after it.
   */
  overlay(draw: ((width: number, height: number) => string[]) | undefined): void {
    this.overlayDraw = draw;
    if (!draw && this.inAlt) {
      this.write("\x1b[?1049l");
      this.inAlt = false;
      this.full = true;
    }
    this.request();
  }

  private drawOverlay(draw: (width: number, height: number) => string[]): void {
    const width = Math.max(10, this.screen.columns - 1);
    const lines = draw(width, Math.max(4, this.screen.rows)).map((l) => (lineWidth(l) > width ? truncateToWidth(l, width, "") : l));
    this.write(`${this.inAlt ? "" : "\x1b[?1049h"}${SYNC_ON}\x1b[H\x1b[2J${lines.join("\r\n")}${SYNC_OFF}`);
    this.inAlt = true;
  }

  /** Draw now (tests and shutdown). */
  frame(): void {
    if (this.stopped) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.lastFrameAt = performance.now();
    if (this.overlayDraw) return this.drawOverlay(this.overlayDraw);
    // A resize is handled here, not in the resize event: a frame may run first.
    if (this.prevColumns > 0 && (this.screen.columns !== this.prevColumns || this.screen.rows < this.prevRows)) this.resizedFrom(this.prevColumns, this.prevRows);
    this.prevColumns = this.screen.columns;
    this.prevRows = this.screen.rows;
    // One column short of the edge: a full-width line leaves the cursor in the
    // terminal's pending-wrap state, where erase sequences behave differently.
    const width = Math.max(10, this.screen.columns - 1);
    const rows = Math.max(4, this.screen.rows);
    let raw = this.live(width);
    let commits = this.commits;
    this.commits = [];
    if (this.gone.length) {
      // Lines a resize left in the scrollback: not written again when committed, not drawn while live.
      const c = shared(commits, this.gone);
      commits = commits.slice(c);
      this.gone = this.gone.slice(c);
      this.gone = this.gone.slice(0, shared(raw, this.gone));
      raw = raw.slice(this.gone.length);
    }
    if (raw.length > rows - 1) raw = raw.slice(raw.length - (rows - 1));
    const next = raw.map((l) => (lineWidth(l) > width ? truncateToWidth(l, width, "") : l));
    // Finished lines take the live region's place; the live region follows them.
    // Usually they were on screen already as the live tail, so the diff below
    // finds them unchanged and writes nothing for them.
    // Every row must fit: a line the terminal wraps would shift all cursor arithmetic.
    const fit = (l: string) => (lineWidth(l) > width ? wrapTextWithAnsi(l, width) : [l]);
    const lines = commits.length ? [...commits.flatMap(fit), ...next] : next;
    const old = this.prev;
    const out = this.full ? this.redrawAll(lines) : this.diff(old, lines, rows);
    this.full = false;
    this.prev = next;
    this.prevRaw = raw;
    this.cursorRow = Math.max(0, next.length - 1);
    // The lines were written from the region's top down, the screen scrolling at its bottom.
    if (lines.length) this.top = Math.max(0, Math.min(this.screen.rows - 1, this.top + lines.length - 1) - this.cursorRow);
    if (!out) return;
    // Synchronized output keeps a multi-line update from tearing; a small one
    // (a row or two) does not need the extra bytes.
    // The cursor ends at the start of its row: where a re-wrap leaves it is then known (reflowed).
    this.write(out.length > 160 ? `${SYNC_ON}${out}\r${SYNC_OFF}` : `${out}\r`);
    this.frames++;
  }

  /**
   * Each row is cleared on its own and the rows below from the end of the
   * last one: an erase-below at the screen's top-left corner is a clear
   * screen to tmux (scroll-on-clear), which moves the whole screen into its
   * history — every row on it would be there twice.
   */
  private redrawAll(lines: string[]): string {
    return `${up(this.cursorRow)}\r${lines.map((l) => `\x1b[2K${l}`).join("\r\n")}\x1b[J`;
  }

  /**
   * Bring the rows from the live region's top from `old` to `lines` with few
   * bytes: unchanged leading lines stay; where the region grew or shrank, rows
   * are inserted or deleted (IL/DL) right after them so the lines below keep
   * their rows; then only rows whose text differs are written, and of those
   * only from the first differing column.
   */
  private diff(old: string[], lines: string[], rows: number): string {
    let first = 0;
    while (first < old.length && first < lines.length && old[first] === lines[first]) first++;
    if (first === old.length && first === lines.length) return "";
    const delta = lines.length - old.length;
    const last = lines.length - 1;
    let out = "";
    let cur = this.cursorRow; // row of the cursor, counted from the live region's top
    let exists = Math.max(1, old.length); // rows of the region the terminal has (CUD cannot make more)
    const moveTo = (row: number) => {
      if (row < cur) out += up(cur - row);
      else if (row > cur) {
        const within = Math.min(row, exists - 1);
        // A line feed is the shortest way down; rows above the region's last are never the screen's bottom.
        if (within > cur) out += within - cur <= 2 ? "\n".repeat(within - cur) : down(within - cur);
        if (row > within) {
          out += "\r\n".repeat(row - within);
          exists = row + 1;
        }
      }
      cur = row;
    };
    /** What the terminal shows at `row` after the shift. */
    let present = (row: number): string | undefined => old[row];
    if (old.length === 0) {
      out += "\r\x1b[J"; // the first frame: from the start of the cursor's line
    } else if (delta > 0 && lines.length - first <= rows) {
      // Make room below (scrolling the screen when at its bottom), then open rows at `first`.
      moveTo(old.length - 1);
      out += "\r\n".repeat(delta);
      cur += delta;
      exists = cur + 1;
      moveTo(first);
      out += `\r\x1b[${delta}L`;
      present = (row) => (row < first ? old[row] : row < first + delta ? "" : old[row - delta]);
    } else if (delta > 0) {
      // Too tall to shift in place: rewrite from `first` down.
      moveTo(Math.min(first, old.length - 1));
      return `${out}\r${lines.slice(cur).map((l) => `\x1b[2K${l}`).join("\r\n")}`;
    } else if (delta < 0) {
      moveTo(first);
      out += `\r\x1b[${-delta}M`;
      present = (row) => (row < first ? old[row] : old[row - delta]);
    }
    for (let i = first; i <= last; i++) {
      const was = present(i);
      if (was === lines[i]) continue;
      moveTo(i);
      out += rewriteLine(was ?? "", lines[i]!);
    }
    moveTo(last);
    return out;
  }

  /** Leave the live region on screen and put the cursor below it. */
  stop(finalLines?: string[]): void {
    if (this.stopped) return;
    this.overlay(undefined);
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
