import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { reasonixHome } from "../home.ts";
import { configSchema, type FieldSpec } from "./schema.ts";
import { isTable } from "./validate.ts";
import { restrictProject, formatIgnored, type IgnoredSetting } from "../trust/policy.ts";
import { inputTrusted, realWorkspace, trustState, type TrustState } from "../trust/index.ts";
import { projectInputError, sha256 } from "../trust/inputs.ts";
import { InputRefused, MAX_PROJECT_INPUT_BYTES, readRegularFile } from "../fs/bounded-read.ts";
import { ConfigError } from "../errors.ts";
import { parseConfigText, type ConfigFile, type ConfigTable } from "./parse.ts";

/** The user's own config.toml may be larger than a project's (trust records accumulate there). */
const MAX_USER_CONFIG_BYTES = 16 * 1024 * 1024;

export { parseConfigText, type ConfigFile, type ConfigTable };

export interface LoadedConfig {
  /** The merged config: defaults < user < project < flags. */
  values: ConfigTable;
  /** Dotted key → where its value came from ("default", a file path, or "flag"). */
  sources: Map<string, string>;
  files: ConfigFile[];
  warnings: string[];
  home: string;
  /** The workspace's trust state and what its project file was not allowed to set. */
  trust: ProjectTrust;
}

export interface ProjectTrust extends TrustState {
  /** True when the project file present now is approved (or there is none to judge). */
  trusted: boolean;
  /** Present when the workspace has a reasonix.toml. */
  projectFile?: { path: string; sha256: string };
  ignored: IgnoredSetting[];
}

export interface LoadOptions {
  cwd?: string;
  home?: string;
  /** Values from command-line flags, as dotted keys. */
  flags?: Record<string, unknown>;
  /** Skip the project file (e.g. `config set` on the user file). */
  noProject?: boolean;
  /** `--trust-project`: approve the project content as it is now, for this process only. */
  trustProject?: boolean;
  /** Judge the project file as unapproved whatever the records say (to show what approval changes). */
  ignoreTrust?: boolean;
}

/** Read a config file's bytes; an I/O failure (a directory, no permission) names the path. */
export function readConfigBytes(path: string, scope: "user" | "project" = "user"): Buffer {
  try {
    return scope === "project" ? readRegularFile(path, MAX_PROJECT_INPUT_BYTES) : readRegularFile(path, MAX_USER_CONFIG_BYTES, "a config file");
  } catch (e) {
    if (e instanceof InputRefused) throw scope === "project" ? projectInputError(e) : new ConfigError(path, e.reason);
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "EISDIR" ? "is a directory, not a file" : code === "EACCES" ? "cannot be read (permission denied)" : `cannot be read (${code ?? (e as Error).message})`;
    throw new ConfigError(path, why);
  }
}

/** Parse one TOML file; syntax errors name file:line:col, type errors the dotted key. */
export function readConfigFile(path: string, scope: "user" | "project", warnings: string[]): ConfigFile | null {
  if (!existsSync(path)) return null;
  const text = readConfigBytes(path, scope).toString("utf8");
  return parseConfigText(text, path, scope, warnings);
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

/** Lists a project file adds to (user ∪ project); it can never empty the user's. */
const UNION_LISTS = new Set(["permissions.allow", "permissions.ask", "permissions.deny", "sandbox.allow_write", "sandbox.forbid_read"]);

/** Deep-merge tables; scalars and most arrays from `over` replace. Records sources per leaf. */
function mergeInto(base: ConfigTable, over: ConfigTable, prefix: string, source: string, sources: Map<string, string>, union = false): void {
  for (const [k, v] of Object.entries(over)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isTable(v) && isTable(base[k]) && !isFreeForm(key)) {
      mergeInto(base[k] as ConfigTable, v, key, source, sources, union);
    } else if (union && UNION_LISTS.has(key) && Array.isArray(v) && Array.isArray(base[k])) {
      const merged = [...(base[k] as unknown[])];
      for (const x of v) if (!merged.includes(x)) merged.push(structuredClone(x));
      if (merged.length === (base[k] as unknown[]).length) continue;
      const before = sources.get(key);
      base[k] = merged;
      sources.set(key, before && before !== "default" ? `${before} + ${source}` : source);
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
  if (user) {
    files.push(user);
    mergeInto(values, user.data, "", user.path, sources);
  }
  const workspace = realWorkspace(resolve(opts.cwd ?? process.cwd()));
  const trust: ProjectTrust = { ...trustState(workspace, values, !!opts.trustProject), trusted: true, ignored: [] };
  if (!opts.noProject) {
    const path = projectConfigPath(opts.cwd ?? process.cwd());
    const raw = existsSync(path) ? readConfigBytes(path, "project") : undefined;
    if (raw !== undefined) {
      // Judge exactly the bytes that are parsed: a file swapped in between cannot borrow the approval.
      const text = raw.toString("utf8");
      const digest = sha256(raw);
      const project = parseConfigText(text, path, "project", warnings);
      files.push(project);
      trust.projectFile = { path, sha256: digest };
      trust.trusted = !opts.ignoreTrust && inputTrusted(trust, "reasonix.toml", { rel: "reasonix.toml", sha256: digest, bytes: raw.length });
      const allowed = restrictProject({ data: project.data, text, file: path, user: values, workspace, trusted: trust.trusted, userConfig: join(home, "config.toml") });
      trust.ignored = allowed.ignored;
      for (const i of allowed.ignored) warnings.push(formatIgnored(i));
      mergeInto(values, allowed.data, "", path, sources, true);
    }
  }
  if (opts.flags) {
    const flagTable: ConfigTable = {};
    for (const [k, v] of Object.entries(opts.flags)) if (v !== undefined) setDotted(flagTable, k, v);
    mergeInto(values, flagTable, "", "flag", sources);
  }
  return { values, sources, files, warnings, home, trust };
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
