import { existsSync, statSync } from "node:fs";
import { stringify } from "smol-toml";
import { ConfigError, UsageError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { configSchema, type FieldSpec } from "./schema.ts";
import { getDotted, parseConfigText, readConfigBytes, type ConfigTable } from "./load.ts";

/** Find the schema entry for a dotted key, or undefined when unknown. */
export function specForKey(key: string): FieldSpec | undefined {
  let fields: Record<string, FieldSpec> | undefined = configSchema;
  let spec: FieldSpec | undefined;
  for (const part of key.split(".")) {
    spec = fields?.[part];
    if (!spec) return undefined;
    fields = spec.type === "table" ? spec.fields : undefined;
  }
  return spec;
}

/** Turn the command-line text VALUE into the type the schema wants for KEY. */
export function coerceValue(key: string, raw: string): unknown {
  const spec = specForKey(key);
  if (!spec) throw new UsageError(`unknown config key "${key}"`, "see `reasonix config list` for known keys");
  switch (spec.type) {
    case "string": return raw;
    case "enum":
      if (!spec.values.includes(raw)) throw new UsageError(`${key}: expected one of ${spec.values.join(", ")}, got "${raw}"`);
      return raw;
    case "boolean":
      if (raw === "true" || raw === "false") return raw === "true";
      throw new UsageError(`${key}: expected true or false, got "${raw}"`);
    case "number":
    case "integer": {
      const n = Number(raw);
      if (raw.trim() === "" || Number.isNaN(n) || (spec.type === "integer" && !Number.isInteger(n)))
        throw new UsageError(`${key}: expected ${spec.type === "integer" ? "an integer" : "a number"}, got "${raw}"`);
      return n;
    }
    case "array": {
      try {
        const parsed = JSON.parse(raw);
        if (Array.isArray(parsed)) return parsed;
      } catch {}
      return raw === "" ? [] : raw.split(",").map((s) => s.trim());
    }
    default:
      throw new UsageError(`${key} is a table; set its fields one at a time (or edit the file)`);
  }
}

const tomlValue = (v: unknown): string => {
  // smol-toml only stringifies tables; wrap and peel to serialise one value.
  const line = stringify({ v }).trim();
  return line.slice(line.indexOf("=") + 1).trim();
};

const headerRe = /^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$/;
const arrayHeaderRe = /^\s*\[\[/;

/**
 * Set KEY = VALUE in TOML `text` by editing lines, so comments, ordering and
 * unrelated tables survive. Returns the new text.
 */
export function setInText(text: string, key: string, value: unknown): string {
  const parts = key.split(".");
  const leaf = parts.pop()!;
  const table = parts.join(".");
  const lines = text.split("\n");
  const { start, end, found } = tableRange(lines, table);
  const assignment = `${leaf} = ${tomlValue(value)}`;
  if (!found) {
    const trimmed = text.replace(/\n*$/, "");
    return `${trimmed}${trimmed ? "\n\n" : ""}[${table}]\n${assignment}\n`;
  }
  const keyRe = keyLine(leaf);
  for (let i = start; i < end; i++) {
    const m = keyRe.exec(lines[i]!);
    if (m) {
      // Keep a trailing comment when the old value is a simple one-liner.
      const comment = /\s+(#[^"']*)$/.exec(lines[i]!)?.[1];
      lines[i] = `${m[1]}${assignment}${comment ? ` ${comment}` : ""}`;
      return lines.join("\n");
    }
  }
  // Insert after the last non-blank line of the table.
  let at = end;
  while (at > start && lines[at - 1]!.trim() === "") at--;
  lines.splice(at, 0, assignment);
  return lines.join("\n");
}

/** The lines of TABLE ("" = top level): [start, end) and whether its header exists. */
function tableRange(lines: string[], table: string): { start: number; end: number; found: boolean } {
  if (table === "") {
    const end = lines.findIndex((l) => headerRe.test(l) || arrayHeaderRe.test(l));
    return { start: 0, end: end < 0 ? lines.length : end, found: true };
  }
  for (let i = 0; i < lines.length; i++) {
    const m = headerRe.exec(lines[i]!);
    if (m && !arrayHeaderRe.test(lines[i]!) && m[1]!.replace(/\s/g, "") === table) {
      let end = lines.length;
      for (let j = i + 1; j < lines.length; j++) {
        if (headerRe.test(lines[j]!) || arrayHeaderRe.test(lines[j]!)) { end = j; break; }
      }
      return { start: i + 1, end, found: true };
    }
  }
  return { start: 0, end: lines.length, found: false };
}

const keyLine = (leaf: string) => new RegExp(`^(\\s*)(${leaf.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|"${leaf}")\\s*=`);

/** Drop a one-line KEY = … from TOML `text` (a no-op when it is not there as one line). */
export function dropInText(text: string, key: string): string {
  const parts = key.split(".");
  const leaf = parts.pop()!;
  const lines = text.split("\n");
  const { start, end, found } = tableRange(lines, parts.join("."));
  if (!found) return text;
  const re = keyLine(leaf);
  for (let i = start; i < end; i++) if (re.test(lines[i]!)) return [...lines.slice(0, i), ...lines.slice(i + 1)].join("\n");
  return text;
}

/** `reasonix config set`: edit the user config atomically; nothing is written on error. */
export function setConfigValue(path: string, key: string, raw: string): unknown {
  const value = coerceValue(key, raw);
  const before = existsSync(path) ? readConfigBytes(path).toString("utf8") : "";
  const after = setInText(before, key, value);
  // Re-parse what we would write: it must be valid and must read back the value.
  const parsed = parseConfigText(after, path, "user", []);
  const readBack = getDotted(parsed.data, key);
  if (JSON.stringify(readBack) !== JSON.stringify(value)) {
    throw new UsageError(`could not set ${key} in ${path} without restructuring the file; edit it by hand`);
  }
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o600;
  writeFileAtomic(path, after, { mode, dirMode: 0o700 });
  return value;
}

/**
 * Apply a line-level text edit to a config file: the result must parse, and
 * `check(before, after)` (the parsed tables) must return null, else nothing
 * is written and the error names the file. Written atomically, mode kept (0600 new).
 */
export function editConfigFile(path: string, edit: (text: string) => string, check: (before: ConfigTable, after: ConfigTable) => string | null): void {
  const before = existsSync(path) ? readConfigBytes(path).toString("utf8") : "";
  const beforeData = before ? parseConfigText(before, path, "user", []).data : {};
  const after = edit(before);
  let afterData: ConfigTable;
  try {
    afterData = parseConfigText(after, path, "user", []).data;
  } catch (e) {
    throw new ConfigError(path, `the edit would break the file (${(e as Error).message}); edit it by hand`);
  }
  const problem = check(beforeData, afterData);
  if (problem) throw new ConfigError(path, `could not edit the file without disturbing other settings (${problem}); edit it by hand`);
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o600;
  writeFileAtomic(path, after, { mode, dirMode: 0o700 });
}
