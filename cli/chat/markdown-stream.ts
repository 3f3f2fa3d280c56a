// Streaming markdown: the answer grows delta by delta. Finished blocks (text
// up to a blank line outside a code fence) are rendered once and handed to the
// scrollback; only the unfinished tail is re-rendered in the live region.
import { Markdown } from "@mariozechner/pi-tui";
import { markdownTheme } from "./theme.ts";

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

export function renderMarkdown(text: string, width: number): string[] {
  if (!text.trim()) return [];
  // pi-tui pads every line to the full width: trailing spaces are bytes on a slow link.
  const lines = new Markdown(text, 0, 0, markdownTheme).render(width).map((l) => l.replace(/ +$/, ""));
  while (lines.length && lines.at(-1) === "") lines.pop();
  return lines;
}

export class MarkdownStream {
  private pending = "";
  private tailText = "";
  private tailWidth = 0;
  private tailLines: string[] = [];
  /** Any text was committed for this message. */
  started = false;

  /** Add a delta; returns lines to commit (finished blocks), possibly none. */
  push(delta: string, width: number): string[] {
    this.pending += delta;
    const cut = safeSplit(this.pending);
    if (cut === 0) return [];
    const done = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    const lines = renderMarkdown(done, width);
    if (lines.length === 0) return [];
    const out = this.started ? ["", ...lines] : lines;
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
      this.tailLines = renderMarkdown(long ? this.pending : this.pending.slice(0, cut), width);
      if (long) this.tailLines.pop();
      if (this.started && this.tailLines.length) this.tailLines.unshift("");
    }
    return this.tailLines;
  }

  /** The message is complete: everything left, to commit. */
  finish(width: number): string[] {
    const lines = renderMarkdown(this.pending, width);
    const out = this.started && lines.length ? ["", ...lines] : lines;
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
  }
}
