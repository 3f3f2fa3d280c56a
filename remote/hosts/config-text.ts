/**
 * Line-level editing of `[[remote.hosts]]` blocks in the user config, so the
 * user's comments, ordering and every other table survive an add or remove.
 */
import { parse, stringify } from "smol-toml";

export interface HostBlock {
  name: string | undefined;
  /** First line (the `[[remote.hosts]]` header), 0-based. */
  start: number;
  /** One past the last line that belongs to the block (sub-tables included, trailing blanks excluded). */
  end: number;
}

const HEADER = /^\s*\[\[?\s*([A-Za-z0-9_."' -]+?)\s*\]\]?\s*(#.*)?$/;
const headerName = (line: string): string | null => {
  const m = HEADER.exec(line);
  return m ? m[1]!.replace(/\s*\.\s*/g, ".").replace(/["']/g, "") : null;
};
const isHostHeader = (line: string) => /^\s*\[\[\s*remote\s*\.\s*hosts\s*\]\]/.test(line);

export function findHostBlocks(text: string): HostBlock[] {
  const lines = text.split("\n");
  const blocks: HostBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!isHostHeader(lines[i]!)) continue;
    let end = lines.length;
    for (let j = i + 1; j < lines.length; j++) {
      const h = headerName(lines[j]!);
      // Sub-tables of this host ([[remote.hosts.forwards]]) stay in the block.
      if (h !== null && !(h.startsWith("remote.hosts.") && !isHostHeader(lines[j]!))) {
        end = j;
        break;
      }
    }
    while (end > i + 1 && (lines[end - 1]!.trim() === "" || lines[end - 1]!.trim().startsWith("#"))) end--;
    let name: string | undefined;
    try {
      const data = parse(lines.slice(i, end).join("\n")) as { remote?: { hosts?: { name?: unknown }[] } };
      const n = data.remote?.hosts?.[0]?.name;
      if (typeof n === "string") name = n;
    } catch {}
    blocks.push({ name, start: i, end });
  }
  return blocks;
}

const tomlValue = (v: unknown): string => {
  const line = stringify({ v }).trim();
  return line.slice(line.indexOf("=") + 1).trim();
};

/** TOML lines for a new host block, fields in a stable, readable order. */
export function renderHostBlock(host: Record<string, unknown>, header = "[[remote.hosts]]"): string[] {
  const lines = [header];
  const forwards = host.forwards as Record<string, unknown>[] | undefined;
  for (const [k, v] of Object.entries(host)) {
    if (k === "forwards" || v === undefined) continue;
    lines.push(`${k} = ${tomlValue(v)}`);
  }
  for (const f of forwards ?? []) lines.push("", ...renderHostBlock(f, "[[remote.hosts.forwards]]").slice(0));
  return lines;
}

export function appendHostBlock(text: string, host: Record<string, unknown>): string {
  const body = text.replace(/\n*$/, "");
  return `${body}${body ? "\n\n" : ""}${renderHostBlock(host).join("\n")}\n`;
}

export function removeHostBlock(text: string, name: string): string | null {
  const block = findHostBlocks(text).find((b) => b.name === name);
  if (!block) return null;
  const lines = text.split("\n");
  let end = block.end;
  while (end < lines.length && lines[end]!.trim() === "") end++;
  lines.splice(block.start, end - block.start);
  return lines.join("\n");
}

/** Insert lines at the end of NAME's block (e.g. a `[[remote.hosts.forwards]]` table). */
export function appendToHostBlock(text: string, name: string, extra: string[]): string | null {
  const block = findHostBlocks(text).find((b) => b.name === name);
  if (!block) return null;
  const lines = text.split("\n");
  lines.splice(block.end, 0, ...extra);
  return lines.join("\n");
}
