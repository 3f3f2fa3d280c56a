import { ConfigError, ReasonixError, UsageError } from "../errors.ts";
import { homePaths } from "../home.ts";
import type { ModelInfo } from "../engine/types.ts";
import type { ProviderConfig } from "./types.ts";

/** Fields a provider owns in the request body; extra_body can never replace them. */
export const RESERVED_BODY_KEYS = new Set(["model", "messages", "tools", "stream", "system", "stream_options", "input", "instructions"]);

/** Read and check `[[providers]]` from the effective config values. */
export function providerEntries(values: Record<string, unknown>, source = "config"): ProviderConfig[] {
  const raw = values.providers;
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new ConfigError(source, "providers: expected an array of tables ([[providers]])");
  const seen = new Set<string>();
  return raw.map((entry, i) => {
    const e = entry as ProviderConfig;
    const where = `providers[${i}]${e?.name ? ` ("${e.name}")` : ""}`;
    if (!e || typeof e !== "object") throw new ConfigError(source, `${where}: expected a table`);
    if (!e.name) throw new ConfigError(source, `${where}: name is required`);
    if (seen.has(e.name)) throw new ConfigError(source, `${where}: duplicate provider name "${e.name}"`);
    seen.add(e.name);
    if (!e.kind) throw new ConfigError(source, `${where}: kind is required ("openai", "anthropic" or "responses")`);
    if (!e.base_url) throw new ConfigError(source, `${where}: base_url is required`);
    if (!e.model && !(e.models && e.models.length > 0)) throw new ConfigError(source, `${where}: set model = "..." or models = [..]`);
    if (e.extra_body !== undefined) checkExtraBody(e.extra_body, `${where}.extra_body`, source);
    return e;
  });
}

function checkExtraBody(v: unknown, path: string, source: string): void {
  if (v === null) throw new ConfigError(source, `${path}: null values are not allowed (remove the key instead)`);
  if (Array.isArray(v)) v.forEach((x, i) => checkExtraBody(x, `${path}[${i}]`, source));
  else if (typeof v === "object") for (const [k, x] of Object.entries(v as object)) checkExtraBody(x, `${path}.${k}`, source);
}

/** Merge extra_body under our own body: reserved keys always keep our values. */
export function mergeExtraBody(body: Record<string, unknown>, extra: Record<string, unknown> | undefined, providerName: string): Record<string, unknown> {
  if (!extra) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(extra)) {
    if (RESERVED_BODY_KEYS.has(k)) continue;
    if (v === null) throw new ConfigError("config", `providers "${providerName}".extra_body.${k}: null values are not allowed`);
    out[k] = v;
  }
  return { ...out, ...body };
}

export const entryModels = (e: ProviderConfig): string[] => (e.models && e.models.length > 0 ? e.models : [e.model!]);

export interface ModelChoice {
  entry: ProviderConfig;
  model: string;
  /** Display name: the entry name, or entry/model when the entry lists several. */
  name: string;
}

export function modelChoices(entries: ProviderConfig[]): ModelChoice[] {
  const out: ModelChoice[] = [];
  for (const e of entries) {
    const ms = entryModels(e);
    for (const m of ms) out.push({ entry: e, model: m, name: ms.length > 1 ? `${e.name}/${m}` : e.name });
  }
  return out;
}

/**
 * Pick the model to use: `--model` (entry name, entry/model — any model the
 * entry's endpoint serves — or a model id),
 * else default_model, else the first entry.
 */
export function selectModel(entries: ProviderConfig[], wanted: string | undefined, defaultModel: string | undefined): ModelChoice {
  if (entries.length === 0) {
    const file = homePaths().config;
    // The next step is in the message itself: front ends that show only the message (web UI, chat) still say it.
    throw new ReasonixError("config", `no model provider is configured in ${file}: run \`reasonix setup\` to add one`, { hint: "for scripts: `reasonix setup add NAME --preset P --key-stdin`; see `reasonix docs show setup.md`" });
  }
  const choices = modelChoices(entries);
  const key = wanted ?? defaultModel;
  if (!key) return choices[0]!;
  const byEntry = entries.find((e) => e.name === key);
  if (byEntry) return { entry: byEntry, model: entryModels(byEntry)[0]!, name: byEntry.name };
  const exact = choices.find((c) => c.name === key) ?? choices.find((c) => `${c.entry.name}/${c.model}` === key) ?? choices.find((c) => c.model === key);
  if (exact) return exact;
  // entry/model for a model the entry's endpoint serves but the entry does not list (/model in the chat offers them).
  const slash = key.indexOf("/");
  const owner = slash > 0 ? entries.find((e) => e.name === key.slice(0, slash)) : undefined;
  if (owner && key.length > slash + 1) return { entry: owner, model: key.slice(slash + 1), name: key };
  const known = choices.map((c) => c.name).join(", ");
  if (wanted) throw new UsageError(`--model "${key}" matches no [[providers]] entry`, `known: ${known}`);
  throw new ConfigError("config", `default_model "${key}" matches no [[providers]] entry (known: ${known})`);
}

export function modelInfos(entries: ProviderConfig[], hasSecret: (name: string) => boolean): ModelInfo[] {
  return modelChoices(entries).map((c) => ({
    name: c.name,
    kind: c.entry.kind as ModelInfo["kind"],
    model: c.model,
    hasKey: c.entry.api_key_env ? hasSecret(c.entry.api_key_env) : true,
    apiKeyEnv: c.entry.api_key_env,
    ...(c.entry.context_window ? { contextWindow: c.entry.context_window } : {}),
    ...(c.entry.vision === true ? { vision: true } : {}),
  }));
}
