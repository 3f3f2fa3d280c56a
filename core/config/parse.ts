// Reading and parsing one config file (TOML, validated against the schema).
// A leaf: trust records (core/trust/store.ts) parse the user config with it;
// core/config/load.ts merges the files and applies the trust policy.
import { parse, TomlError } from "smol-toml";
import { ConfigError } from "../errors.ts";
import { configSchema } from "./schema.ts";
import { validateTable } from "./validate.ts";

export type ConfigTable = Record<string, unknown>;

export interface ConfigFile {
  path: string;
  scope: "user" | "project";
  data: ConfigTable;
}

/** Parse TOML text read from `path`; syntax errors name file:line:col, type errors the dotted key. */
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
  // [telemetry] is user config only: a project file's is refused as a whole (core/trust/policy.ts).
  if (scope === "user") migrateRenamed(data, path, warnings);
  const errors: { key: string; message: string }[] = [];
  const warns: { key: string; message: string }[] = [];
  validateTable(data, configSchema, undefined, "", errors, warns);
  if (errors.length > 0) {
    throw new ConfigError(path, errors.map((e) => `${e.key}: ${e.message}`).join("; "));
  }
  for (const w of warns) warnings.push(`${path}: ${w.key}: ${w.message}`);
  // A small context window is allowed but costly: frequent compaction, fewer cache hits.
  const providers = Array.isArray(data.providers) ? (data.providers as ConfigTable[]) : [];
  providers.forEach((p, i) => {
    const cw = p?.context_window;
    if (typeof cw === "number" && cw > 0 && cw < 16384) {
      warnings.push(`${path}: providers[${i}]${typeof p.name === "string" ? ` ("${p.name}")` : ""}.context_window = ${cw} is below 16384: compaction will run often and cache hits drop; use the model's documented context limit, not its output limit`);
    }
  });
  return { path, scope, data };
}

/**
 * Keys an older Reasonix used, read as their replacement with a note:
 * `[telemetry] enabled = true|false` (which never sent anything) is read as
 * `mode = "on"|"off"` unless `mode` is set too; `reasonix config telemetry
 * MODE` saves the new key and drops the old one.
 */
function migrateRenamed(data: ConfigTable, path: string, warnings: string[]): void {
  const t = data.telemetry;
  if (typeof t !== "object" || t === null || Array.isArray(t) || !("enabled" in t)) return;
  const table = t as ConfigTable;
  const old = table.enabled;
  delete table.enabled;
  const fix = "run `reasonix config telemetry auto|on|off` to save the new key and drop the old one";
  if (typeof old !== "boolean") {
    warnings.push(`${path}: telemetry.enabled is no longer read; the setting is now telemetry.mode (auto, on or off): ${fix}`);
  } else if (table.mode !== undefined) {
    warnings.push(`${path}: telemetry.enabled is replaced by telemetry.mode, which is set too: the old key is ignored (${fix})`);
  } else {
    table.mode = old ? "on" : "off";
    warnings.push(`${path}: telemetry.enabled = ${old} is read as telemetry.mode = "${table.mode}" (the key was renamed): ${fix}`);
  }
}
