export interface DocSection {
  path: string;
  heading: string;
  /** GitHub-style anchor of the heading, used by `docs show PATH#anchor`. */
  anchor: string;
  level: number;
  text: string;
}

export function slugify(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s+/g, "-");
}

/** Split markdown into heading-delimited sections (fenced code is not split). */
export function splitSections(path: string, markdown: string): DocSection[] {
  const out: DocSection[] = [];
  let cur: DocSection = { path, heading: path, anchor: "", level: 0, text: "" };
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const m = !inFence && /^(#{1,4})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) {
      if (cur.text.trim() !== "" || cur.level > 0) out.push(cur);
      cur = { path, heading: m[2]!, anchor: slugify(m[2]!), level: m[1]!.length, text: "" };
    } else {
      cur.text += `${line}\n`;
    }
  }
  if (cur.text.trim() !== "" || cur.level > 0) out.push(cur);
  return out;
}
