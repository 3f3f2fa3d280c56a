// A `[[providers]]` entry from a preset plus what the user typed: shared by
// `reasonix setup add` and the web UI's provider setup.
import { UsageError } from "../errors.ts";
import type { ProviderConfig } from "../providers/types.ts";
import { CATALOG, findPreset, keyEnvFor, presetEntryFields, type Preset } from "./presets.ts";

export interface EntryInput {
  name: string;
  preset?: string;
  kind?: string;
  baseUrl?: string;
  model?: string;
  keyEnv?: string;
  /** A key will be stored: a custom URL then gets a key variable named after the entry. */
  withKey?: boolean;
}

/**
 * Whose words errors use: "cli" names the command's flags (`--base-url URL`),
 * "form" the fields of the web UI's provider form ("Base URL").
 */
export type Wording = "cli" | "form";

/** Build the entry (model may stay unset when `requireModel` is false, e.g. before a connection test). */
export function entryFromInput(i: EntryInput, requireModel = true, words: Wording = "cli"): { entry: ProviderConfig; preset?: Preset } {
  const form = words === "form";
  const preset = i.preset ? findPreset(i.preset) : undefined;
  if (i.preset && !preset) throw new UsageError(`unknown preset "${i.preset}"`, `presets: ${CATALOG.map((p) => p.id).join(", ")}`);
  if (!preset && !i.baseUrl) throw new UsageError(form ? "pick a provider, or give a Base URL" : "give --preset P, or --base-url URL (with --model M)", `presets: ${CATALOG.map((p) => p.id).join(", ")}`);
  const baseUrl = i.baseUrl || preset?.baseUrl || "";
  if (!baseUrl) throw new UsageError(form ? `${preset!.label} needs a Base URL (the API's address, e.g. http://127.0.0.1:8000/v1)` : `--preset ${preset!.id} needs --base-url URL`);
  const model = i.model || preset?.model;
  if (requireModel && !model) {
    if (form) throw new UsageError("give a Model: the model id the server serves, e.g. qwen3:8b (Test connection lists them)");
    throw new UsageError(`--model is required${preset ? ` with --preset ${preset.id}` : ""}`, "give the model id the server serves, e.g. --model qwen3:8b");
  }
  const keyEnv = i.keyEnv || preset?.keyEnv || (i.withKey ? keyEnvFor(i.name) : undefined);
  return {
    preset,
    entry: { name: i.name, kind: i.kind || preset?.kind || "openai", base_url: baseUrl, ...(model ? { model } : {}), ...(keyEnv ? { api_key_env: keyEnv } : {}), ...presetEntryFields(preset, model) },
  };
}
