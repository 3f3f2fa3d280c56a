// Streaming markdown: the answer grows delta by delta. Finished blocks (text
// up to a blank line outside a code fence) are rendered once and handed to the
// scrollback; only the unfinished tail is re-rendered in the live region.
import { renderMarkdown } from "./markdown-render.ts";

export { renderMarkdown };

/** Index just after the last blank line that is outside a ``` / ~~~ fence (0 when none). */
export function safeSplit(text: string): number {
  let inFence = false;
  let fence = "";
  let split = 0;
  let pos = 0;
  let prevBlank = false;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    if (nl < 0) break; // the last line is unfinished
    const line = text.slice(pos, nl);
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!inFence) {
        inFence = true;
        fence = m[1]!;
      } else if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") {
        inFence = false;
        split = nl + 1; // a closed fence is a finished block
      }
    }
    const blank = line.trim() === "";
    // A blank line ends a block unless a list or table may go on after it.
    if (!inFence && blank && !prevBlank) split = nl + 1;
    prevBlank = blank;
    pos = nl + 1;
  }
  return split;
}

/** Whether `text` (complete lines) leaves a code fence open. */
export function openFence(text: string): boolean {
  let fence = "";
  for (const line of text.split("\n")) {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (!m) continue;
    if (!fence) fence = m[1]!;
    else if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") fence = "";
  }
  return fence !== "";
}

/** Code lines an open fence may hold before its finished lines go to the scrollback. */
const FENCE_CHUNK = 24;

/**
 * Inside an open code fence with many complete lines: where to cut so those
 * lines can be committed (the fence is closed for rendering and re-opened for
 * the rest). Returns the index after the last complete line and the fence's
 * opening line, or undefined.
 */
export function fenceSplit(text: string): { cut: number; open: string } | undefined {
  let fence = "";
  let open = "";
  let lines = 0;
  let pos = 0;
  let cut = 0;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    if (nl < 0) break;
    const line = text.slice(pos, nl);
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m && !fence) {
      fence = m[1]!;
      open = line;
      lines = 0;
    } else if (m && line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") fence = "";
    else if (fence) {
      lines++;
      cut = nl + 1;
    }
    pos = nl + 1;
  }
  return fence && lines >= FENCE_CHUNK ? { cut, open } : undefined;
}

/**
 * A long list with no blank line in it: the start of its last complete item,
 * once enough lines came before it (each chunk of a list renders on its own
 * the same way), or 0.
 */
export function listSplit(text: string): number {
  let lines = 0;
  let cut = 0;
  let pos = 0;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    if (nl < 0) break;
    // Only before a top-level item: a nested one belongs to the item above it.
    if (lines >= FENCE_CHUNK && /^(?:[-*+]|\d{1,9}[.)])\s/.test(text.slice(pos, nl)) && !openFence(text.slice(0, pos))) cut = pos;
    lines++;
    pos = nl + 1;
  }
  return cut;
}

/** Table lines (header and separator included) that set its column widths before any of its rows is committed. */
const TABLE_ROWS = 6;

/** Rows `a` and `b` share from the top. */
function sharedRows(a: string[], b: string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * The answer grows delta by delta; finished rows go to the scrollback as they
 * complete, so only the unfinished end of the answer stays in the live region.
 * A row of the current block is finished once its complete lines render it
 * and the block's last complete line did not change it (a paragraph's last
 * row, a list item's lazy continuation, a table after its newest row wait).
 * A block (text up to a blank line, a long list's or code block's piece) is
 * rendered at the width it started with, so a resize mid-block can neither
 * drop nor repeat a row (the renderer wraps rows wider than the screen).
 */
export class MarkdownStream {
  private pending = "";
  private tailKey = "";
  private memo: { key: string; rows: string[] }[] = [];
  private tailLines: string[] = [];
  /** Rows of the pending block already committed, and the width they were rendered at. */
  private done = 0;
  private blockWidth = 0;
  /** Any text was committed for this message. */
  started = false;
  /** The last commit ended inside a block (a list or code block goes on): no blank line before the next piece. */
  private midBlock = false;

  /** Render `text` (fence rows are never drawn, so a fence closed and re-opened to cut a long block leaves no trace). */
  private render(text: string): string[] {
    // The same text is rendered for the tail and again for the commit check: remember the last few.
    const key = `${this.blockWidth}:${text}`;
    const hit = this.memo.find((m) => m.key === key);
    if (hit) return hit.rows;
    const rows = renderMarkdown(text, this.blockWidth);
    this.memo = [{ key, rows }, ...this.memo.slice(0, 2)];
    return rows;
  }

  /** Add a delta; returns lines to commit (finished rows), possibly none. */
  push(delta: string, width: number): string[] {
    if (!this.pending) this.blockWidth = width;
    this.pending += delta;
    if (!delta.includes("\n")) return [];
    const out: string[] = [];
    const cut = safeSplit(this.pending);
    if (cut > 0) out.push(...this.take(this.render(this.pending.slice(0, cut)), this.pending.slice(cut), false, width));
    else {
      // A long list: close the piece before its last item.
      const l = listSplit(this.pending);
      if (l > 0) out.push(...this.take(this.render(this.pending.slice(0, l)), this.pending.slice(l), true, width));
      else {
        // A long code block: its finished lines as a piece, the fence re-opened for the rest.
        const f = fenceSplit(this.pending);
        if (f) {
          const closer = /^\s*([`~]+)/.exec(f.open)![1]!;
          out.push(...this.take(this.render(`${this.pending.slice(0, f.cut)}${closer}\n`), `${f.open}\n${this.pending.slice(f.cut)}`, true, width));
        }
      }
    }
    out.push(...this.finishedRows());
    return out;
  }

  /** The pending block's rows that its newest complete line left unchanged, not yet committed. */
  private finishedRows(): string[] {
    const last = this.pending.lastIndexOf("\n");
    if (last < 0) return [];
    const before = this.pending.lastIndexOf("\n", last - 1) + 1;
    // A table's column widths come from its rows: its first rows wait until there are enough to set them.
    const table = this.pending.slice(0, last).split("\n").filter((l) => l.trimStart().startsWith("|")).length;
    if (this.done === 0 && table > 0 && table < TABLE_ROWS && this.pending.slice(before).trimStart().startsWith("|")) return [];
    const now = this.render(this.pending.slice(0, last + 1));
    const stable = before > 0 ? sharedRows(this.render(this.pending.slice(0, before)), now) : 0;
    if (stable <= this.done) return [];
    const rows = now.slice(this.done, stable);
    const first = this.done === 0;
    this.done = stable;
    return this.emit(rows, first);
  }

  /** Rows of the pending block, joined to what came before: a blank line separates blocks, never the pieces of one. */
  private emit(rows: string[], first: boolean): string[] {
    if (rows.length === 0) return [];
    const out = first && this.started && !this.midBlock ? ["", ...rows] : rows;
    this.started = true;
    return out;
  }

  /** The piece `rows` is finished: commit what of it is not yet, keep `rest` pending. */
  private take(rows: string[], rest: string, midBlock: boolean, width: number): string[] {
    const out = this.emit(rows.slice(this.done), this.done === 0);
    // Rows committed beyond the piece (seldom: the rest rendered inside the whole) stay committed.
    this.done = Math.max(0, this.done - rows.length);
    this.pending = rest;
    this.midBlock = midBlock;
    if (this.done === 0) this.blockWidth = width;
    return out;
  }

  /** The unfinished tail, rendered (cached per text and width). */
  tail(width: number): string[] {
    if (!this.pending) this.blockWidth = width;
    // An unfinished line still changes with every delta: show lines once
    // they are complete, so each row reaches the terminal about once. A long
    // unfinished paragraph shows its complete rows (greedy wrapping keeps
    // them stable) so it is not invisible for seconds.
    const cut = this.pending.lastIndexOf("\n") + 1;
    const long = this.pending.length - cut > this.blockWidth && !openFence(this.pending.slice(0, cut));
    const text = long ? this.pending : this.pending.slice(0, cut);
    const key = `${this.blockWidth}:${this.done}:${this.started}:${this.midBlock}:${long}:${text}`;
    if (key !== this.tailKey) {
      this.tailKey = key;
      const rows = this.render(text).slice(0, long ? -1 : undefined);
      this.tailLines = rows.slice(this.done);
      if (this.done === 0 && this.started && !this.midBlock && this.tailLines.length) this.tailLines.unshift("");
    }
    return this.tailLines;
  }

  /** The message is complete: everything left, to commit. */
  finish(width: number): string[] {
    if (!this.pending) this.blockWidth = width;
    const out = this.take(this.render(this.pending), "", false, width);
    this.reset();
    return out;
  }

  /** Drop what has not been committed (a retried step). Returns whether text was dropped. */
  discard(): boolean {
    const had = this.pending.trim() !== "";
    this.pending = "";
    this.done = 0;
    this.tailKey = "";
    this.memo = [];
    this.tailLines = [];
    return had;
  }

  reset(): void {
    this.discard();
    this.started = false;
    this.midBlock = false;
  }
}
