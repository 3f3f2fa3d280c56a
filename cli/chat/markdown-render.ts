// One markdown block → terminal rows, on pi-tui's renderer with three changes
// a reader expects from a chat: headings never show their `###`, code blocks
// show their code without the ``` fence lines, and a wrapped list item goes on
// under its own text (hanging indent) instead of at the left edge.
import { Markdown, visibleWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { markdownTheme } from "./theme.ts";

/** Fence rows are drawn as this marker and dropped (model and tool text never holds a NUL: sanitize.ts removes it). */
const FENCE = "\x00";

interface Token {
  type: string;
  depth?: number;
}
type RenderToken = (token: Token, width: number, next?: string, ctx?: unknown) => string[];

/** A list row's own indent and bullet, styles included: what its wrapped rows go on under. */
const LIST_PREFIX = /^( *)((?:\x1b\[[0-9;]*m)*(?:[-*+]|\d{1,9}[.)]) (?:\x1b\[[0-9;]*m)*)?/;

function hangingWrap(line: string, width: number): string[] {
  if (visibleWidth(line) <= width) return [line];
  const prefix = LIST_PREFIX.exec(line)![0];
  const hang = visibleWidth(prefix);
  if (hang >= width - 8) return [line]; // too deep to indent usefully: the plain wrap follows
  const rows = wrapTextWithAnsi(line.slice(prefix.length), width - hang);
  return rows.map((r, i) => (i === 0 ? prefix : " ".repeat(hang)) + r);
}

class ChatMarkdown extends Markdown {}

// pi-tui keeps renderToken private: the override goes on the prototype, called for nested blocks too.
const base = (Markdown.prototype as unknown as { renderToken: RenderToken }).renderToken;
Object.defineProperty(ChatMarkdown.prototype, "renderToken", {
  value: function (this: Markdown, token: Token, width: number, next?: string, ctx?: unknown): string[] {
    if (token.type === "heading" && (token.depth ?? 1) > 2) return base.call(this, { ...token, depth: 2 }, width, next, ctx);
    const lines = base.call(this, token, width, next, ctx);
    return token.type === "list" ? lines.flatMap((l) => hangingWrap(l, width)) : lines;
  },
});

const theme = { ...markdownTheme, codeBlockBorder: () => FENCE };

export function renderMarkdown(text: string, width: number): string[] {
  if (!text.trim()) return [];
  // pi-tui pads every line to the full width: trailing spaces are bytes on a slow link.
  const lines = new ChatMarkdown(text, 0, 0, theme)
    .render(width)
    .filter((l) => !l.includes(FENCE))
    .map((l) => l.replace(/ +$/, ""));
  while (lines.length && lines.at(-1) === "") lines.pop();
  return lines;
}
