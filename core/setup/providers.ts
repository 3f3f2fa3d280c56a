/**
 * `[[providers]]` in the *user* config (providers are user-only: a project
 * file never defines one) and their keys in $REASONIX_HOME/.env. Every write
 * is a line-level edit that is re-parsed and checked before an atomic replace,
 * so comments and unrelated settings survive.
 */
import { homePaths, reasonixHome } from "../home.ts";
import { UsageError } from "../errors.ts";
import type { Wording } from "./entry.ts";
import { readConfigFile, type ConfigTable } from "../config/load.ts";
import { editConfigFile, setInText } from "../config/edit.ts";
import { appendArrayTable, removeArrayTable, removeTopLevelKey, setArrayTableField } from "../config/array-tables.ts";
import { EFFORTS } from "../protocol/modes.ts";
import { SecretStore } from "../secrets/dotenv.ts";
import { entryModels, providerEntries } from "../providers/config.ts";
import type { ProviderConfig } from "../providers/types.ts";

export const PROVIDER_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KINDS = ["openai", "anthropic", "responses"];

export interface ProviderStatus {
  name: string;
  kind: string;
  baseUrl: string;
  models: string[];
  keyEnv?: string;
  /** False when api_key_env is set and has no value in the .env file. */
  hasKey: boolean;
  isDefault: boolean;
  /** The entry's reasoning_effort (what its sessions start with), when set. */
  effort?: string;
}

export interface UserProviders {
  /** The user config file (real path, never "$REASONIX_HOME"). */
  path: string;
  /** The secrets file. */
  dotenv: string;
  providers: ProviderConfig[];
  defaultModel?: string;
}

/** The user's providers, read from the user config only. Throws ConfigError (file:line) when it does not parse. */
export function userProviders(home = reasonixHome()): UserProviders {
  const paths = homePaths(home);
  const data = readConfigFile(paths.config, "user", [])?.data ?? {};
  return {
    path: paths.config,
    dotenv: paths.dotenv,
    providers: providerEntries(data, paths.config),
    defaultModel: typeof data.default_model === "string" ? data.default_model : undefined,
  };
}

/** True when no provider is configured: the agent cannot run, so front ends start `reasonix setup`. */
export function needsSetup(home = reasonixHome()): boolean {
  return userProviders(home).providers.length === 0;
}

/** The entry default_model picks (or the first), as the engine would choose it. */
export function defaultProvider(u: UserProviders): ProviderConfig | undefined {
  if (!u.defaultModel) return u.providers[0];
  const key = u.defaultModel;
  return u.providers.find((p) => p.name === key) ?? u.providers.find((p) => entryModels(p).some((m) => `${p.name}/${m}` === key || m === key));
}

export function providerStatuses(home = reasonixHome()): { path: string; dotenv: string; providers: ProviderStatus[] } {
  const u = userProviders(home);
  const keys = new SecretStore(u.dotenv).read();
  const def = defaultProvider(u);
  return {
    path: u.path,
    dotenv: u.dotenv,
    providers: u.providers.map((p) => ({
      name: p.name,
      kind: p.kind,
      baseUrl: p.base_url ?? "",
      models: entryModels(p),
      ...(p.api_key_env ? { keyEnv: p.api_key_env } : {}),
      hasKey: p.api_key_env ? !!keys.get(p.api_key_env) : true,
      isDefault: p === def,
      ...(p.reasoning_effort ? { effort: p.reasoning_effort } : {}),
    })),
  };
}

/** Check a new entry before anything is written; the message names the field and echoes the value. */
export function checkEntry(e: ProviderConfig, words: Wording = "cli"): void {
  // The web form's fields by their labels; the command's by their flags.
  const form = words === "form";
  if (!PROVIDER_NAME_RE.test(e.name)) throw new UsageError(`provider name "${e.name}" is not usable${form ? " (letters, digits, '.', '_', '-')" : ""}`, "use letters, digits, '.', '_' and '-' (at most 64), starting with a letter or digit");
  if (!KINDS.includes(e.kind)) throw new UsageError(`${form ? "Protocol" : "--kind"} "${e.kind}" is not a provider kind`, `known: ${KINDS.join(", ")}`);
  let url: URL;
  try {
    url = new URL(e.base_url ?? "");
  } catch {
    throw new UsageError(form ? `Base URL "${e.base_url ?? ""}" is not a URL (e.g. https://api.example.com/v1)` : `--base-url "${e.base_url ?? ""}" is not a URL`, "give the API's base URL, e.g. https://api.example.com/v1");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new UsageError(`${form ? "Base URL" : "--base-url"} "${e.base_url}" must be http:// or https://`);
  if (!e.model || /\s/.test(e.model)) throw new UsageError(form ? `Model "${e.model ?? ""}" is not a model id (e.g. gpt-4.1)` : `--model "${e.model ?? ""}" is not a model id`, "give the model id the API expects, e.g. --model gpt-4.1");
  if (e.api_key_env !== undefined && !ENV_NAME_RE.test(e.api_key_env)) throw new UsageError(`--key-env "${e.api_key_env}" is not a variable name`, "use letters, digits and '_', e.g. MY_API_KEY");
}

const withoutProviders = (d: ConfigTable) => {
  const { providers: _p, default_model: _d, ...rest } = d;
  return JSON.stringify(rest);
};

/**
 * Append a `[[providers]]` entry to the user config; also make it the
 * default when asked or when no default_model is set yet.
 */
export function addProvider(entry: ProviderConfig, opts: { home?: string; makeDefault?: boolean } = {}): { path: string; isDefault: boolean } {
  checkEntry(entry);
  const u = userProviders(opts.home);
  if (u.providers.some((p) => p.name === entry.name)) {
    throw new UsageError(`a provider named "${entry.name}" already exists in ${u.path}`, `pick another name, or remove it first: reasonix setup remove ${entry.name}`);
  }
  const makeDefault = !!opts.makeDefault || !u.defaultModel || !defaultProvider(u);
  const table = {
    name: entry.name, kind: entry.kind, base_url: entry.base_url, model: entry.model, api_key_env: entry.api_key_env,
    // From the presets catalog (presets.ts): limits and wire details of the service.
    context_window: entry.context_window, vision: entry.vision, auth: entry.auth, capability: entry.capability, web_search: entry.web_search, headers: entry.headers,
  };
  editConfigFile(
    u.path,
    (text) => {
      const added = appendArrayTable(text, "providers", table);
      return makeDefault ? setInText(added, "default_model", entry.name) : added;
    },
    (before, after) => {
      const b = (before.providers as ConfigTable[] | undefined) ?? [];
      const a = (after.providers as ConfigTable[] | undefined) ?? [];
      if (a.length !== b.length + 1 || JSON.stringify(a.at(-1)) !== JSON.stringify(JSON.parse(JSON.stringify(table)))) return "the new [[providers]] entry did not read back";
      if (makeDefault && after.default_model !== entry.name) return "default_model did not read back";
      return withoutProviders(before) === withoutProviders(after) ? null : "other settings changed";
    },
  );
  return { path: u.path, isDefault: makeDefault };
}

/** Remove an entry; when it was the default, the next entry (if any) becomes the default. */
export function removeProvider(name: string, home?: string): { path: string; newDefault: string | null | undefined } {
  const u = userProviders(home);
  if (!u.providers.some((p) => p.name === name)) throw unknownProvider(name, u);
  const rest = u.providers.filter((p) => p.name !== name);
  const wasDefault = defaultProvider(u)?.name === name && u.defaultModel !== undefined;
  const newDefault = wasDefault ? (rest[0]?.name ?? null) : undefined;
  editConfigFile(
    u.path,
    (text) => {
      const removed = removeArrayTable(text, "providers", name);
      if (removed === null) throw new UsageError(`could not find the [[providers]] block of "${name}" in ${u.path} (is its name computed?); edit the file by hand`);
      if (newDefault === undefined) return removed;
      return newDefault === null ? removeTopLevelKey(removed, "default_model") : setInText(removed, "default_model", newDefault);
    },
    (before, after) => {
      const a = ((after.providers as ConfigTable[] | undefined) ?? []).map((p) => p.name);
      if (JSON.stringify(a) !== JSON.stringify(rest.map((p) => p.name))) return "the [[providers]] list did not read back";
      return withoutProviders(before) === withoutProviders(after) ? null : "other settings changed";
    },
  );
  return { path: u.path, newDefault };
}

/** Set default_model to an existing entry (NAME or NAME/MODEL). */
export function setDefaultProvider(name: string, home?: string): { path: string } {
  const u = userProviders(home);
  if (!defaultProvider({ ...u, defaultModel: name })) throw unknownProvider(name, u);
  editConfigFile(u.path, (text) => setInText(text, "default_model", name), (before, after) =>
    after.default_model === name && withoutProviders(before) === withoutProviders(after) ? null : "default_model did not read back");
  return { path: u.path };
}

/** Set (or with undefined, clear) an entry's reasoning_effort: the effort its sessions start with. */
export function setProviderEffort(name: string, effort: string | undefined, home?: string): { path: string } {
  if (effort !== undefined && !(EFFORTS as readonly string[]).includes(effort)) throw new UsageError(`effort "${effort}" is not a reasoning effort`, `known: ${EFFORTS.join(", ")} (or "default" to clear it)`);
  const u = userProviders(home);
  if (!u.providers.some((p) => p.name === name)) throw unknownProvider(name, u);
  const others = (t: ConfigTable) => JSON.stringify({ ...t, providers: ((t.providers as ConfigTable[] | undefined) ?? []).map((p) => (p.name === name ? { ...p, reasoning_effort: undefined } : p)) });
  editConfigFile(
    u.path,
    (text) => {
      const out = setArrayTableField(text, "providers", name, "reasoning_effort", effort);
      if (out === null) throw new UsageError(`could not find the [[providers]] block of "${name}" in ${u.path} (is its name computed?); edit the file by hand`);
      return out;
    },
    (before, after) => {
      const e = ((after.providers as ConfigTable[] | undefined) ?? []).find((p) => p.name === name)?.reasoning_effort;
      if (e !== effort) return "reasoning_effort did not read back";
      return others(before) === others(after) ? null : "other settings changed";
    },
  );
  return { path: u.path };
}

function unknownProvider(name: string, u: UserProviders): UsageError {
  const known = u.providers.map((p) => p.name);
  return new UsageError(`no provider named "${name}" in ${u.path}`, known.length ? `known: ${known.join(", ")}` : "add one with: reasonix setup");
}

/** Store a key under ENV in the .env file (0600); never echoed anywhere. */
export function storeKey(env: string, key: string, home?: string): string {
  if (!ENV_NAME_RE.test(env)) throw new UsageError(`"${env}" is not a variable name`);
  const value = key.trim();
  if (value === "") throw new UsageError("the key is empty");
  if (/[\r\n]/.test(value)) throw new UsageError("the key must be a single line");
  const path = homePaths(home ?? reasonixHome()).dotenv;
  new SecretStore(path).set(env, value);
  return path;
}

export function hasKey(env: string, home?: string): boolean {
  return !!new SecretStore(homePaths(home ?? reasonixHome()).dotenv).get(env);
}
