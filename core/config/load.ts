import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse, TomlError } from "smol-toml";
import { ConfigError } from "../errors.ts";
import { homePaths, reasonixHome } from "../home.ts";
import { configSchema, userOnlySections, type FieldSpec } from "./schema.ts";
import { isTable, validateTable } from "./validate.ts";

export type ConfigTable = Record<string, unknown>;

export interface ConfigFile {
  path: string;
  scope: "user" | "project";
  data: ConfigTable;
}

export interface LoadedConfig {
  /** The merged config: defaults < user < project < flags. */
  values: ConfigTable;
  /** Dotted key → where its value came from ("default", a file path, or "flag"). */
  sources: Map<string, string>;
  files: ConfigFile[];
  warnings: string[];
  home: string;
}

export interface LoadOptions {
  cwd?: string;
  home?: string;
  /** Values from command-line flags, as dotted keys. */
  flags?: Record<string, unknown>;
  /** Skip the project file (e.g. `config set` on the user file). */
  noProject?: boolean;
}

/** Parse one TOML file; syntax errors name file:line:col, type errors the dotted key. */
export function readConfigFile(path: string, scope: "user" | "project", warnings: string[]): ConfigFile | null {
  if (!existsSync(path)) return null;
  const text = readFileSync(path, "utf8");
  return parseConfigText(text, path, scope, warnings);
}

export function parseConfigText(text: string, path: string, scope: "user" | "project", warnings: string[]): ConfigFile {
  let data: ConfigTable;
  try {
    data = parse(text) as ConfigTable;
  } catch (e) {
    if (e instanceof TomlError) {
      const first = e.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
      throw new ConfigError(`${path}:${e.line}:${e.column}`, `TOML syntax error: ${first}`);
    }
    throw e;
  }
  if (scope === "project") {
    for (const section of Object.keys(data)) {
      if (userOnlySections.has(section)) {
        warnings.push(`${path}: [${section}] is only honoured in the user config (${homePaths().config}); ignored here`);
        delete data[section];
      }
    }
  }
  const errors: { key: string; message: string }[] = [];
  const warns: { key: string; message: string }[] = [];
  validateTable(data, configSchema, undefined, "", errors, warns);
  if (errors.length > 0) {
    throw new ConfigError(path, errors.map((e) => `${e.key}: ${e.message}`).join("; "));
  }
  for (const w of warns) warnings.push(`${path}: ${w.key}: ${w.message}`);
  return { path, scope, data };
}

function collectDefaults(fields: Record<string, FieldSpec>, prefix: string, out: ConfigTable, sources: Map<string, string>): void {
  for (const [k, spec] of Object.entries(fields)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (spec.type === "table" && spec.fields) {
      const child: ConfigTable = {};
      collectDefaults(spec.fields, key, child, sources);
      out[k] = child;
    } else if (spec.type !== "table" && spec.type !== "tables" && spec.default !== undefined) {
      out[k] = structuredClone(spec.default);
      sources.set(key, "default");
    }
  }
}

/** Deep-merge tables; arrays and scalars from `over` replace. Records sources per leaf. */
function mergeInto(base: ConfigTable, over: ConfigTable, prefix: string, source: string, sources: Map<string, string>): void {
  for (const [k, v] of Object.entries(over)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isTable(v) && isTable(base[k]) && !isFreeForm(key)) {
      mergeInto(base[k] as ConfigTable, v, key, source, sources);
    } else {
      base[k] = structuredClone(v);
      for (const s of [...sources.keys()]) if (s.startsWith(`${key}.`)) sources.delete(s);
      sources.set(key, source);
    }
  }
}

// Free-form tables (headers, extra_body) are replaced whole, not merged.
const isFreeForm = (key: string) => key.endsWith(".headers") || key.endsWith(".extra_body");

export function setDotted(target: ConfigTable, key: string, value: unknown): void {
  const parts = key.split(".");
  let t = target;
  for (const p of parts.slice(0, -1)) {
    if (!isTable(t[p])) t[p] = {};
    t = t[p] as ConfigTable;
  }
  t[parts[parts.length - 1]!] = value;
}

export function getDotted(source: ConfigTable, key: string): unknown {
  let v: unknown = source;
  for (const p of key.split(".")) {
    if (!isTable(v)) return undefined;
    v = v[p];
  }
  return v;
}

export function projectConfigPath(cwd: string): string {
  return join(resolve(cwd), "reasonix.toml");
}

export function loadConfig(opts: LoadOptions = {}): LoadedConfig {
  const home = opts.home ?? reasonixHome();
  const warnings: string[] = [];
  const sources = new Map<string, string>();
  const values: ConfigTable = {};
  collectDefaults(configSchema, "", values, sources);
  const files: ConfigFile[] = [];
  const user = readConfigFile(join(home, "config.toml"), "user", warnings);
  if (user) files.push(user);
  if (!opts.noProject) {
    const project = readConfigFile(projectConfigPath(opts.cwd ?? process.cwd()), "project", warnings);
    if (project) files.push(project);
  }
  for (const f of files) mergeInto(values, f.data, "", f.path, sources);
  if (opts.flags) {
    const flagTable: ConfigTable = {};
    for (const [k, v] of Object.entries(opts.flags)) if (v !== undefined) setDotted(flagTable, k, v);
    mergeInto(values, flagTable, "", "flag", sources);
  }
  return { values, sources, files, warnings, home };
}

/** Leaf keys a config file supplies, dotted ("sandbox.network", "providers"). */
export function leafKeys(table: ConfigTable, prefix = ""): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(table)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isTable(v) && !isFreeForm(key)) out.push(...leafKeys(v, key));
    else out.push(key);
  }
  return out;
}
