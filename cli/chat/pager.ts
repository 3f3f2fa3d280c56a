// The whole conversation as one scrollable view (Ctrl-T): every prompt,
// answer, reasoning and tool card with its full output or change, rendered
// from the folded transcript (core/protocol/fold.ts), drawn on the terminal's
// alternate screen so closing it leaves the chat exactly as it was.
import { matchesKey, truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import type { Block, ToolBlock, Transcript as Folded } from "../../core/protocol/fold.ts";
import { guardianLine } from "../../core/guardian/format.ts";
import { subagentLine } from "../../core/agents/events.ts";
import { goalEventLine } from "../../core/goal/format.ts";
import { callSummary, cardLine, changeLines, type CardState, type Paint } from "./cards.ts";
import { renderMarkdown } from "./markdown-stream.ts";
import { cleanText } from "./sanitize.ts";

const STATE: Record<ToolBlock["status"], CardState> = { running: "running", ask: "waiting", allowed: "running", denied: "failed", ok: "ok", failed: "failed" };

/** A tool's output (or a reasoning text), indented and dim, every line kept (wrapped, never cut). */
export function fullText(p: Paint, text: string, width: number): string[] {
  return cleanText(text.replace(/\n+$/, ""))
    .split("\n")
    .flatMap((l) => wrapTextWithAnsi(`  ${l}`, width))
    .map((l) => p.dim(l));
}

/** A tool card with everything it holds: the call, the decision, the change, the output. */
export function toolCard(p: Paint, b: ToolBlock, width: number): string[] {
  const summary = b.input === undefined ? "" : callSummary(b.name, b.input);
  const out = [cardLine(p, STATE[b.status], b.name, summary, b.user && b.status === "ok" ? "you ran this" : b.receipt, width)];
  if (b.status === "denied") out.push(p.dim("  denied"));
  if (b.diff?.length || (b.status === "ok" && /^(edit_file|write_file|multi_edit)$/.test(b.name))) out.push(...changeLines(p, b.name, b.input, b.diff, width, Infinity));
  else if (b.output?.trim()) out.push(...fullText(p, b.output, width));
  return out;
}

function blockLines(p: Paint, b: Block, width: number): string[] {
  switch (b.kind) {
    case "prompt":
      return ["", ...cleanText(b.text).split("\n").flatMap((l, i) => wrapTextWithAnsi(`${i === 0 ? p.cyan("› ") : "  "}${l}`, width)), ""];
    case "answer":
      return [...(b.reasoning.trim() ? [p.dim("∴ reasoning"), ...fullText(p, b.reasoning.trim(), width)] : []), ...renderMarkdown(b.text, width)];
    case "tool":
      return toolCard(p, b, width);
    case "end":
      return b.reason === "done" ? [] : [p.yellow(`turn ended: ${b.reason}${b.error && !b.repeatsError ? ` — ${b.error}` : ""}`)];
    case "notice": {
      const e = b.event;
      if (e.type === "todo") return e.items.map((i) => p.dim(`  ${i.status === "completed" ? "☑" : i.status === "in_progress" ? "▸" : "☐"} ${i.content}`));
      const line = e.type === "warning" ? `warning: ${e.message}` : e.type === "error" ? `error: ${e.message}` : e.type === "guardian" ? guardianLine(e) : e.type === "subagent" ? subagentLine(e) : e.type === "goal" ? goalEventLine(e) : e.type === "plan" ? `plan:\n${e.text}` : undefined;
      return line ? line.split("\n").flatMap((l) => wrapTextWithAnsi(p.dim(cleanText(l)), width)) : [];
    }
  }
}

/** The transcript's blocks as rows of `width` columns. */
export function transcriptLines(p: Paint, t: Folded, width: number): string[] {
  return t.blocks.flatMap((b) => blockLines(p, b, width)).map((l) => truncateToWidth(l, width, "…"));
}

/** A read-only scrollable view of rows; starts at the end (the newest). */
export class Pager {
  /** Index of the first row shown; Infinity = pinned to the end. */
  private top = Infinity;
  private rowsCache: { key: string; lines: string[] } | undefined;

  constructor(
    private readonly p: Paint,
    private readonly title: string,
    private readonly content: (width: number) => string[],
    /** Changes when the content does (a turn still running adds to it). */
    private readonly version: () => string = () => "",
  ) {}

  private lines(width: number): string[] {
    const key = `${width}:${this.version()}`;
    if (this.rowsCache?.key !== key) this.rowsCache = { key, lines: this.content(width) };
    return this.rowsCache.lines;
  }

  /** A key: true when it closes the view. `page` is the rows one page moves. */
  key(data: string, page: number): boolean {
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+t") || matchesKey(data, "ctrl+c") || data === "q") return true;
    const move = matchesKey(data, "up") || data === "k" ? -1 : matchesKey(data, "down") || data === "j" ? 1 : matchesKey(data, "pageUp") || data === "b" ? -page : matchesKey(data, "pageDown") || data === " " ? page : 0;
    const max = Math.max(0, (this.rowsCache?.lines.length ?? 0) - page);
    const from = Math.min(this.top, max);
    if (move) this.top = Math.max(0, Math.min(max, from + move));
    else if (matchesKey(data, "home") || matchesKey(data, "ctrl+home") || data === "g") this.top = 0;
    else if (matchesKey(data, "end") || matchesKey(data, "ctrl+end") || data === "G") this.top = Infinity;
    return false;
  }

  /** `height` rows: a title line (with `note`), then the rows from the scroll position. */
  render(width: number, height: number, note?: string): string[] {
    const all = this.lines(width);
    const body = Math.max(1, height - 1);
    const top = Math.max(0, Math.min(this.top, all.length - body));
    const shown = all.slice(top, top + body);
    const where = all.length > body ? `rows ${top + 1}–${top + shown.length} of ${all.length}` : `${all.length} rows`;
    const head = truncateToWidth(`${this.p.bold(`${this.title} · ${where} · ↑↓ PgUp PgDn Home End · q closes`)}${note ? ` ${this.p.yellow(note)}` : ""}`, width, "…");
    return [head, ...shown];
  }
}
