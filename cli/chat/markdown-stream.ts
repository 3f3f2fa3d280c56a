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

export class MarkdownStream {
  private pending = "";
  private tailText = "";
  private tailWidth = 0;
  private tailLines: string[] = [];
  /** Any text was committed for this message. */
  started = false;
  /** The last commit ended inside a block (a list or code block goes on): no blank line before the next piece. */
  private midBlock = false;

  /** Render `text` (fence rows are never drawn, so a fence closed and re-opened to cut a long block leaves no trace). */
  private render(text: string, width: number): string[] {
    return renderMarkdown(text, width);
  }

  /** Add a delta; returns lines to commit (finished blocks), possibly none. */
  push(delta: string, width: number): string[] {
    this.pending += delta;
    const cut = safeSplit(this.pending);
    if (cut > 0) return this.take(this.render(this.pending.slice(0, cut), width), this.pending.slice(cut), false);
    // A long list: commit the items before the last one.
    const l = listSplit(this.pending);
    if (l > 0) return this.take(this.render(this.pending.slice(0, l), width), this.pending.slice(l), true);
    // A long code block: commit its finished lines, keep the fence open for the rest.
    const f = fenceSplit(this.pending);
    if (!f) return [];
    const closer = /^\s*([`~]+)/.exec(f.open)![1]!;
    const lines = this.render(`${this.pending.slice(0, f.cut)}${closer}\n`, width);
    return this.take(lines, `${f.open}\n${this.pending.slice(f.cut)}`, true);
  }

  /** Commit `lines`, keep `rest` pending; a blank line separates blocks, never the pieces of one. */
  private take(lines: string[], rest: string, midBlock: boolean): string[] {
    this.pending = rest;
    const join = this.midBlock;
    this.midBlock = midBlock;
    if (lines.length === 0) return [];
    const out = this.started && !join ? ["", ...lines] : lines;
    this.started = true;
    return out;
  }

  /** The unfinished tail, rendered (cached per text and width). */
  tail(width: number): string[] {
    if (this.pending !== this.tailText || width !== this.tailWidth) {
      this.tailText = this.pending;
      this.tailWidth = width;
      // An unfinished line still changes with every delta: show lines once
      // they are complete, so each row reaches the terminal about once. A long
      // unfinished paragraph shows its complete rows (greedy wrapping keeps
      // them stable) so it is not invisible for seconds.
      const cut = this.pending.lastIndexOf("\n") + 1;
      const long = this.pending.length - cut > width && !openFence(this.pending.slice(0, cut));
      this.tailLines = this.render(long ? this.pending : this.pending.slice(0, cut), width);
      if (long) this.tailLines.pop();
      if (this.started && !this.midBlock && this.tailLines.length) this.tailLines.unshift("");
    }
    return this.tailLines;
  }

  /** The message is complete: everything left, to commit. */
  finish(width: number): string[] {
    const out = this.take(this.render(this.pending, width), "", false);
    this.reset();
    return out;
  }

  /** Drop what has not been committed (a retried step). Returns whether text was dropped. */
  discard(): boolean {
    const had = this.pending.trim() !== "";
    this.pending = "";
    this.tailText = "";
    this.tailLines = [];
    return had;
  }

  reset(): void {
    this.discard();
    this.started = false;
    this.midBlock = false;
  }
}
