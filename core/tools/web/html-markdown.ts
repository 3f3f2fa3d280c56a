/**
 * A small HTML → Markdown reader for web_fetch: drops scripts, styles and
 * page chrome, keeps headings, paragraphs, links, lists, code and emphasis.
 * Not a full parser: good enough to read an article or a docs page.
 */
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", mdash: "—", ndash: "–", hellip: "…", copy: "©", rsquo: "’", lsquo: "‘", rdquo: "”", ldquo: "“" };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === "#") {
      const n = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

const attr = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return m ? decodeEntities(m[2] ?? m[3] ?? m[4] ?? "") : undefined;
};

/** Resolve a link against the page URL; only http(s) links stay links. */
function link(href: string | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    const u = new URL(href, base);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

export function htmlToMarkdown(html: string, baseUrl: string): { title?: string; markdown: string } {
  const titleM = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = titleM ? decodeEntities(titleM[1]!.replace(/\s+/g, " ").trim()) : undefined;
  let s = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style|noscript|template|svg|head|iframe|nav|footer)\b[\s\S]*?<\/\1\s*>/gi, "");
  const main = /<(main|article)\b[^>]*>([\s\S]*?)<\/\1\s*>/i.exec(s);
  if (main) s = main[2]!;
  // Code blocks first, kept verbatim (tags inside stripped).
  const blocks: string[] = [];
  s = s.replace(/<pre\b[^>]*>([\s\S]*?)<\/pre\s*>/gi, (_m, body: string) => {
    blocks.push(decodeEntities(body.replace(/<[^>]+>/g, "")).replace(/\n+$/, ""));
    return `\n\n\u0000${blocks.length - 1}\u0000\n\n`;
  });
  s = s
    .replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi, (_m, n: string, t: string) => `\n\n${"#".repeat(Number(n))} ${t.replace(/<[^>]+>/g, "").trim()}\n\n`)
    .replace(/<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi, (_m, a: string, t: string) => {
      const text = t.replace(/<[^>]+>/g, "").trim();
      const href = link(attr(` ${a}`, "href"), baseUrl);
      return href && text ? `[${text}](${href})` : text;
    })
    .replace(/<img\b([^>]*)>/gi, (_m, a: string) => {
      const alt = attr(` ${a}`, "alt");
      return alt ? `[image: ${alt}]` : "";
    })
    .replace(/<(strong|b)\b[^>]*>([\s\S]*?)<\/\1\s*>/gi, "**$2**")
    .replace(/<(em|i)\b[^>]*>([\s\S]*?)<\/\1\s*>/gi, "_$2_")
    .replace(/<code\b[^>]*>([\s\S]*?)<\/code\s*>/gi, "`$1`")
    .replace(/<li\b[^>]*>/gi, "\n- ")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/?(p|div|section|ul|ol|table|tr|blockquote|header|aside|dl|dt|dd|figure|form)\b[^>]*>/gi, "\n\n")
    .replace(/<\/t[dh]\s*>/gi, " | ")
    .replace(/<[^>]+>/g, "");
  s = decodeEntities(s)
    .split("\n")
    .map((l) => l.replace(/[ \t\f\v\r]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  s = s.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => `\`\`\`\n${blocks[Number(i)]}\n\`\`\``);
  return { ...(title ? { title } : {}), markdown: s };
}
