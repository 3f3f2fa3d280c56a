/**
 * Line-level edits of `[[KEY]]` array tables (e.g. `[[providers]]`) in a TOML
 * text, so comments, ordering and every other table survive an add or remove.
 * Callers re-parse the result before writing it (see editConfigFile in edit.ts).
 */
import { parse, stringify } from "smol-toml";

export interface TableBlock {
  /** The entry's `name` field, when it has a literal one. */
  name: string | undefined;
  /** The `[[KEY]]` header line, 0-based. */
  start: number;
  /** One past the block's last line (its sub-tables included, trailing blanks and comments excluded). */
  end: number;
}

const HEADER = /^\s*\[\[?\s*([A-Za-z0-9_."' -]+?)\s*\]\]?\s*(#.*)?$/;
const headerName = (line: string): string | null => {
  const m = HEADER.exec(line);
  return m ? m[1]!.replace(/\s*\.\s*/g, ".").replace(/["']/g, "") : null;
};
const isArrayHeader = (line: string, key: string) => /^\s*\[\[/.test(line) && headerName(line) === key;

/** Every `[[KEY]]` block of `text`, in file order. */
export function findArrayTables(text: string, key: string): TableBlock[] {
  const lines = text.split("\n");
  const blocks: TableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!isArrayHeader(lines[i]!, key)) continue;
    let end = lines.length;
    for (let j = i + 1; j < lines.length; j++) {
      const h = headerName(lines[j]!);
      // Sub-tables of this entry ([KEY.prices], [[KEY.x]]) stay in the block.
      if (h !== null && (!h.startsWith(`${key}.`) || isArrayHeader(lines[j]!, key))) {
        end = j;
        break;
      }
    }
    while (end > i + 1 && (lines[end - 1]!.trim() === "" || lines[end - 1]!.trim().startsWith("#"))) end--;
    let name: string | undefined;
    try {
      const data = parse(lines.slice(i, end).join("\n")) as Record<string, unknown>;
      const first = (key.split(".").reduce<unknown>((t, k) => (t as Record<string, unknown> | undefined)?.[k], data) as { name?: unknown }[] | undefined)?.[0];
      if (typeof first?.name === "string") name = first.name;
    } catch {}
    blocks.push({ name, start: i, end });
  }
  return blocks;
}

const tomlValue = (v: unknown): string => {
  // A flat table of strings (e.g. headers) as an inline table, so it stays inside its [[KEY]] block.
  if (v && typeof v === "object" && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string")) {
    return `{ ${Object.entries(v as Record<string, string>).map(([k, x]) => `${JSON.stringify(k)} = ${JSON.stringify(x)}`).join(", ")} }`;
  }
  // smol-toml only stringifies tables; wrap and peel to serialise one value.
  const line = stringify({ v }).trim();
  return line.slice(line.indexOf("=") + 1).trim();
};

/** Append `[[KEY]]` with TABLE's fields (in their order) at the end of `text`. */
export function appendArrayTable(text: string, key: string, table: Record<string, unknown>): string {
  const lines = [`[[${key}]]`];
  for (const [k, v] of Object.entries(table)) if (v !== undefined) lines.push(`${k} = ${tomlValue(v)}`);
  const body = text.replace(/\n*$/, "");
  return `${body}${body ? "\n\n" : ""}${lines.join("\n")}\n`;
}

/** Remove the `[[KEY]]` block whose name is NAME (and the blank lines after it); null when there is none. */
export function removeArrayTable(text: string, key: string, name: string): string | null {
  const block = findArrayTables(text, key).find((b) => b.name === name);
  if (!block) return null;
  const lines = text.split("\n");
  let end = block.end;
  while (end < lines.length && lines[end]!.trim() === "") end++;
  lines.splice(block.start, end - block.start);
  return lines.join("\n");
}

/** Remove a top-level `KEY = …` line (before the first table header); the text unchanged when absent. */
export function removeTopLevelKey(text: string, key: string): string {
  const lines = text.split("\n");
  const re = new RegExp(`^\\s*(${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|"${key}")\\s*=`);
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*\[/.test(lines[i]!)) break;
    if (re.test(lines[i]!)) {
      lines.splice(i, 1);
      break;
    }
  }
  return lines.join("\n");
}

/**
 * Set FIELD = VALUE inside the `[[KEY]]` block named NAME (replacing its line,
 * or adding one after the block's last key line); VALUE undefined removes the
 * line. Null when there is no such block. Sub-tables of the block are left alone.
 */
export function setArrayTableField(text: string, key: string, name: string, field: string, value: unknown): string | null {
  const block = findArrayTables(text, key).find((b) => b.name === name);
  if (!block) return null;
  const lines = text.split("\n");
  // The entry's own keys run until its first sub-table header.
  let own = block.end;
  for (let i = block.start + 1; i < block.end; i++) if (headerName(lines[i]!) !== null) { own = i; break; }
  const re = new RegExp(`^\\s*(${field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|"${field}")\\s*=`);
  const at = lines.slice(block.start + 1, own).findIndex((l) => re.test(l));
  const line = value === undefined ? undefined : `${field} = ${tomlValue(value)}`;
  if (at >= 0) lines.splice(block.start + 1 + at, 1, ...(line ? [line] : []));
  else if (line) {
    let end = own;
    while (end > block.start + 1 && (lines[end - 1]!.trim() === "" || lines[end - 1]!.trim().startsWith("#"))) end--;
    lines.splice(end, 0, line);
  }
  return lines.join("\n");
}
