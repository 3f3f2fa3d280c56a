/**
 * Line-level editing of `[[remote.hosts]]` blocks in the user config, so the
 * user's comments, ordering and every other table survive an add or remove.
 */
import { stringify } from "smol-toml";
import { findArrayTables, removeArrayTable, type TableBlock } from "../../core/config/array-tables.ts";

/** One `[[remote.hosts]]` block: header line, end (sub-tables included), literal name. */
export type HostBlock = TableBlock;

export const findHostBlocks = (text: string): HostBlock[] => findArrayTables(text, "remote.hosts");

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

export const removeHostBlock = (text: string, name: string): string | null => removeArrayTable(text, "remote.hosts", name);

/** Insert lines at the end of NAME's block (e.g. a `[[remote.hosts.forwards]]` table). */
export function appendToHostBlock(text: string, name: string, extra: string[]): string | null {
  const block = findHostBlocks(text).find((b) => b.name === name);
  if (!block) return null;
  const lines = text.split("\n");
  lines.splice(block.end, 0, ...extra);
  return lines.join("\n");
}
