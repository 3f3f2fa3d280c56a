// Markdown for model answers, safe and incremental.
//
// Safety: raw HTML in the text is shown as text, links keep only http(s),
// mailto and in-page targets, images become links (the CSP blocks remote
// images anyway). Everything else is marked's escaped output.
//
// Incremental: an answer is cut into blocks at blank lines outside code
// fences. Closed blocks are rendered once and kept; only the open last block
// is rendered again as text streams in, so the cost per delta stays flat.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import ini from "highlight.js/lib/languages/ini";
import { Marked, type Tokens } from "marked";

const LANGS = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml, ini };
for (const [name, def] of Object.entries(LANGS)) hljs.registerLanguage(name, def);
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["js", "jsx", "mjs", "cjs"], { languageName: "javascript" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["yml"], { languageName: "yaml" });
hljs.registerAliases(["toml"], { languageName: "ini" });
hljs.registerAliases(["patch"], { languageName: "diff" });

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const safeHref = (href: string): string | null => {
  const h = href.trim();
  if (/^(https?:|mailto:)/i.test(h) || h.startsWith("#")) return h;
  return null;
};

/** Highlighted HTML for code; plain escaped text for unknown languages. */
export function highlight(code: string, lang: string): string {
  const l = lang.toLowerCase();
  if (l && hljs.getLanguage(l)) {
    try {
      return hljs.highlight(code, { language: l, ignoreIllegals: true }).value;
    } catch {
      // fall through to plain text
    }
  }
  return escapeHtml(code);
}

function makeMarked(highlightCode: boolean): Marked {
  const m = new Marked({ gfm: true, breaks: false, async: false });
  m.use({
    renderer: {
      html(t: Tokens.HTML | Tokens.Tag) {
        return escapeHtml(t.text);
      },
      link(t: Tokens.Link) {
        const text = this.parser.parseInline(t.tokens);
        const href = safeHref(t.href);
        if (!href) return text;
        const title = t.title ? ` title="${escapeHtml(t.title)}"` : "";
        return `<a href="${escapeHtml(href)}"${title} target="_blank" rel="noopener noreferrer">${text}</a>`;
      },
      image(t: Tokens.Image) {
        const href = safeHref(t.href);
        const alt = escapeHtml(t.text || "image");
        return href ? `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${alt}</a>` : alt;
      },
      list(t: Tokens.List) {
        if (!t.ordered) return false;
        // The marker sits in the list's left padding: widen it by the digits of the highest number.
        const start = typeof t.start === "number" ? t.start : 1;
        const digits = Math.min(6, String(Math.max(1, start + t.items.length - 1)).length);
        const body = t.items.map((item) => this.listitem(item)).join("");
        return `<ol class="digits-${digits}"${start !== 1 ? ` start="${start}"` : ""}>\n${body}</ol>\n`;
      },
      code(t: Tokens.Code) {
        const lang = (t.lang ?? "").split(/\s+/)[0] ?? "";
        const body = highlightCode ? highlight(t.text, lang) : escapeHtml(t.text);
        const label = lang ? escapeHtml(lang) : "text";
        // The copy button is wired by the Markdown component (no inline handlers under the CSP).
        return `<div class="codeblock"><div class="code-head"><span class="lang">${label}</span><button type="button" class="copy" data-copy>Copy</button></div><pre tabindex="0"><code class="hljs">${body}</code></pre></div>`;
      },
    },
  });
  return m;
}

const finished = makeMarked(true);
/** The open block re-renders on every frame: no highlighting until it closes (no layout change either). */
const open = makeMarked(false);

/**
 * While an answer streams, a table row that has not arrived whole is held back
 * (as the terminal does): the unfinished last line when it starts a table row,
 * and a table's header row until its delimiter row has arrived — either would
 * show as raw `| f` text for a moment.
 */
export function streamingShown(tail: string): string {
  // Inside an open code fence a line starting with "|" is code (a shell pipe): shown as it comes.
  if ((tail.match(/^ {0,3}(?:`{3,}|~{3,})/gm) ?? []).length % 2) return tail;
  const lines = tail.split("\n");
  const row = (l: string | undefined) => l !== undefined && /^ {0,3}\|/.test(l);
  const last = lines.length - 1;
  if (lines[last] !== "" && row(lines[last])) lines[last] = "";
  // A header row with nothing (or a half delimiter) after it: not a table yet.
  let n = lines.length;
  while (n > 0 && lines[n - 1] === "") n--;
  const end = lines[n - 1];
  const before = lines[n - 2];
  if (row(end) && !row(before)) lines.splice(n - 1, 1);
  return lines.join("\n");
}

export const renderBlock = (md: string, closed: boolean): string => (closed ? finished : open).parse(md) as string;

/**
 * Where closed blocks end: offsets just after a blank line that is outside a
 * code fence. Scans only text after `from` (state carried in `fence`).
 */
export interface Splitter {
  /** Offsets of block ends found so far (each a start of a later block). */
  cuts: number[];
  scanned: number;
  fence: string | null;
}

export const newSplitter = (): Splitter => ({ cuts: [], scanned: 0, fence: null });

export function splitMore(sp: Splitter, text: string): void {
  let pos = sp.scanned;
  while (true) {
    const nl = text.indexOf("\n", pos);
    if (nl < 0) break;
    const line = text.slice(pos, nl);
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!sp.fence) sp.fence = m[1]!;
      else if (line.trim().startsWith(sp.fence) && line.trim().replace(/[`~]/g, "") === "") sp.fence = null;
    } else if (!sp.fence && line.trim() === "") {
      // A blank line at the very end: decide once the next line is known.
      if (nl + 1 >= text.length) break;
      const prev = sp.cuts[sp.cuts.length - 1] ?? 0;
      if (nl + 1 > prev && text.slice(prev, pos).trim() !== "") sp.cuts.push(nl + 1);
    }
    pos = nl + 1;
  }
  sp.scanned = pos;
}
