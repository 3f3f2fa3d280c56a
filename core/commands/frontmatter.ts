/**
 * The YAML front matter of a command or skill file: a `---` fenced block of
 * `key: value` lines at the very top. Only the subset these files use is
 * understood — strings (bare or quoted), booleans, numbers and lists
 * (`[a, b]` or `- item` lines); anything else is an error naming the line.
 */
import { ReasonixError } from "../errors.ts";

export type FrontValue = string | boolean | number | string[];

export interface FrontMatter {
  data: Record<string, FrontValue>;
  body: string;
}

const unquote = (s: string): string => {
  const t = s.trim();
  if (t.length >= 2 && ((t[0] === '"' && t.endsWith('"')) || (t[0] === "'" && t.endsWith("'")))) {
    return t[0] === '"' ? t.slice(1, -1).replace(/\\"/g, '"').replace(/\\n/g, "\n").replace(/\\\\/g, "\\") : t.slice(1, -1).replace(/''/g, "'");
  }
  return t;
};

function scalar(raw: string): FrontValue {
  const t = raw.trim();
  if (t.startsWith("[") && t.endsWith("]")) {
    const inner = t.slice(1, -1).trim();
    return inner ? inner.split(",").map((x) => unquote(x)).filter((x) => x !== "") : [];
  }
  if (t === "true" || t === "false") return t === "true";
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (t.startsWith('"') || t.startsWith("'")) return unquote(t);
  return t.replace(/\s+#.*$/, "");
}

/** Split `text` into front matter and body; `file` names errors. No front matter: empty data, the whole text as body. */
export function parseFrontMatter(text: string, file: string): FrontMatter {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!src.startsWith("---\n")) return { data: {}, body: src };
  const end = src.indexOf("\n---", 3);
  if (end < 0) throw new ReasonixError("frontmatter", `${file}:1: front matter opened with --- is never closed`);
  const lines = src.slice(4, end + 1).split("\n");
  let rest = src.slice(end + 4);
  rest = rest.startsWith("\n") ? rest.slice(1) : rest.replace(/^[^\n]*\n?/, "");
  const data: Record<string, FrontValue> = {};
  let listKey: string | undefined;
  const emptyLists = new Set<string>();
  lines.forEach((line, i) => {
    if (!line.trim() || line.trim().startsWith("#")) return;
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey) {
      emptyLists.delete(listKey);
      (data[listKey] as string[]).push(unquote(item[1]!));
      return;
    }
    const m = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) throw new ReasonixError("frontmatter", `${file}:${i + 2}: expected "key: value" in the front matter, got ${JSON.stringify(line.slice(0, 60))}`);
    const key = m[1]!.toLowerCase();
    if (m[2]!.trim() === "") {
      data[key] = [];
      listKey = key;
      emptyLists.add(key);
      return;
    }
    listKey = undefined;
    data[key] = scalar(m[2]!);
  });
  for (const k of emptyLists) data[k] = "";
  return { data, body: rest };
}

export const fmString = (v: FrontValue | undefined): string | undefined =>
  v === undefined ? undefined : Array.isArray(v) ? v.join(", ") : String(v);

/** `allowed-tools: Read, Bash(git:*)` or a YAML list. */
export const fmList = (v: FrontValue | undefined): string[] | undefined => {
  if (v === undefined || v === "") return undefined;
  if (Array.isArray(v)) return v;
  return String(v).split(/,(?![^(]*\))/).map((s) => s.trim()).filter(Boolean);
};
