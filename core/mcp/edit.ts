/**
 * `reasonix mcp add/remove`: `[[plugins]]` entries in the user's config.toml
 * (or, with --project, the workspace's reasonix.toml), edited line by line so
 * comments and every other setting survive. Removing a server also clears
 * its OAuth state unless another declaration for the same URL stays.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "smol-toml";
import { appendArrayTable, removeArrayTable, setArrayTableField } from "../config/array-tables.ts";
import { editConfigFile } from "../config/edit.ts";
import type { ConfigTable } from "../config/load.ts";
import { UsageError } from "../errors.ts";
import { homePaths } from "../home.ts";
import { SecretStore } from "../secrets/dotenv.ts";
import { cleanName, type McpTransport } from "./config.ts";

export interface AddServer {
  name: string;
  type: McpTransport;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** stdio: where it runs (relative to the workspace). */
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
}

export const configFileFor = (o: { project?: boolean; cwd?: string; home?: string }): string =>
  o.project ? join(resolve(o.cwd ?? process.cwd()), "reasonix.toml") : homePaths(o.home).config;

const names = (t: ConfigTable): string[] => (Array.isArray(t.plugins) ? t.plugins.map((p) => String((p as ConfigTable).name ?? "")) : []);
const withoutPlugins = (t: ConfigTable) => JSON.stringify({ ...t, plugins: undefined });

const checkName = (name: string) => {
  if (cleanName(name) !== name || !name) throw new UsageError(`"${name}" cannot be an MCP server name`, "use letters, digits, _ and - (it becomes part of tool names: mcp__<name>__<tool>)");
};

export function addServer(s: AddServer, file: string): void {
  checkName(s.name);
  if (s.type === "stdio" && !s.command) throw new UsageError("a stdio server needs a command", "reasonix mcp add NAME -- CMD [ARGS…]");
  if (s.type !== "stdio" && !s.url) throw new UsageError(`a ${s.type} server needs --url`);
  if (s.url) {
    try {
      new URL(s.url);
    } catch {
      throw new UsageError(`--url ${s.url} is not a URL`);
    }
  }
  const table: Record<string, unknown> = { name: s.name };
  if (s.type !== "stdio") table.type = s.type;
  if (s.command) table.command = s.command;
  if (s.args?.length) table.args = s.args;
  if (s.url) table.url = s.url;
  if (s.cwd && s.type === "stdio") table.cwd = s.cwd;
  // Inline tables, written by hand (the array-table helper writes scalars and lists).
  const inline: string[] = [];
  if (s.env && Object.keys(s.env).length) inline.push(`env = ${inlineTable(s.env)}`);
  if (s.headers && Object.keys(s.headers).length) inline.push(`headers = ${inlineTable(s.headers)}`);
  editConfigFile(
    file,
    (text) => {
      const existing = findNames(text, file);
      if (existing.includes(s.name)) throw new UsageError(`an MCP server named "${s.name}" already exists in ${file}`, `remove it first: reasonix mcp remove ${s.name}`);
      const added = appendArrayTable(text, "plugins", table);
      return inline.length ? `${added.replace(/\n$/, "")}\n${inline.join("\n")}\n` : added;
    },
    (before, after) => {
      if (JSON.stringify(names(after)) !== JSON.stringify([...names(before), s.name])) return "the new [[plugins]] entry did not read back";
      return withoutPlugins(before) === withoutPlugins(after) ? null : "other settings changed";
    },
  );
}

const bareKey = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));
const inlineTable = (m: Record<string, string>) => `{ ${Object.entries(m).map(([k, v]) => `${bareKey(k)} = ${JSON.stringify(v)}`).join(", ")} }`;

function findNames(text: string, file: string): string[] {
  if (!text.trim()) return [];
  try {
    return names(parse(text) as ConfigTable);
  } catch {
    throw new UsageError(`${file} is not valid TOML; fix it first (reasonix doctor)`);
  }
}

/**
 * `reasonix mcp install/import`: a server whose secrets go to the .env file
 * (DOTENV, 0600) and whose entry refers to them as `${VAR}`. The name is
 * checked first, so a bad or taken name writes nothing.
 */
export function addServerWithSecrets(s: AddServer, secrets: Record<string, string>, file: string, dotenv: string): void {
  checkName(s.name);
  if (serverNames(file).includes(s.name)) throw new UsageError(`an MCP server named "${s.name}" already exists in ${file}`, `remove it first: reasonix mcp remove ${s.name}`);
  const store = new SecretStore(dotenv);
  for (const [k, v] of Object.entries(secrets)) store.set(k, v);
  addServer(s, file);
}

/** The `[[plugins]]` names FILE declares (none when it does not exist). */
export function serverNames(file: string): string[] {
  return existsSync(file) ? findNames(readFileSync(file, "utf8"), file) : [];
}

/** Remove NAME's entry from FILE; false when the file has none. */
export function removeServer(name: string, file: string): boolean {
  if (!existsSync(file)) return false;
  let found = true;
  editConfigFile(
    file,
    (text) => {
      const out = removeArrayTable(text, "plugins", name);
      if (out === null) {
        found = false;
        return text;
      }
      return out;
    },
    (before, after) => {
      if (!found) return null;
      if (names(after).includes(name) && names(before).filter((n) => n === name).length === 1) return "the entry is still there";
      return withoutPlugins(before) === withoutPlugins(after) ? null : "other settings changed";
    },
  );
  return found;
}

/**
 * `reasonix mcp enable/disable NAME`: set `enabled` on NAME's entry in FILE
 * (the line is dropped when enabling: true is the default). Throws when FILE
 * has no entry of that name; nothing else in the file changes.
 */
export function setServerEnabled(name: string, enabled: boolean, file: string): void {
  if (!serverNames(file).includes(name)) throw new UsageError(`no MCP server named "${name}" in ${file}`, "see: reasonix mcp list");
  editConfigFile(
    file,
    (text) => {
      const out = setArrayTableField(text, "plugins", name, "enabled", enabled ? undefined : false);
      if (out === null) throw new UsageError(`could not find the [[plugins]] block of "${name}" in ${file} (is its name computed?); edit the file by hand`);
      return out;
    },
    (before, after) => {
      const entry = (t: ConfigTable) => (Array.isArray(t.plugins) ? (t.plugins as ConfigTable[]).find((p) => p.name === name) : undefined);
      if ((entry(after)?.enabled !== false) !== enabled) return "enabled did not read back";
      const rest = (t: ConfigTable) => JSON.stringify({ ...entry(t), enabled: undefined });
      if (rest(before) !== rest(after)) return "the entry's other fields changed";
      return withoutPlugins(before) === withoutPlugins(after) ? null : "other settings changed";
    },
  );
}
