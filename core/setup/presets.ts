/**
 * Provider presets for `reasonix setup`: the endpoint, wire protocol and key
 * variable of common services, so a newcomer never writes TOML by hand. Every
 * field lands in an ordinary `[[providers]]` entry the user can edit later.
 */

import type { ProviderConfig } from "../providers/types.ts";
import catalog from "./presets.json" with { type: "json" };

export interface PresetModel {
  id: string;
  /** Tokens; written as the entry's context_window when this model is picked. */
  contextWindow?: number;
  /** Accepts images: written as vision = true. */
  vision?: boolean;
  /** Reasoning request shape, when auto-detection would not pick it (see core/providers/reasoning.ts). */
  capability?: ProviderConfig["capability"];
}

export interface Preset {
  id: string;
  label: string;
  kind: "openai" | "anthropic" | "responses";
  /** Empty for the "any OpenAI-compatible URL" preset: the user gives it. */
  baseUrl: string;
  /** The .env variable the key is stored under; absent = the service needs no key. */
  keyEnv?: string;
  /** Model used when none is given and the model list cannot be asked for. */
  model?: string;
  /** Runs on this machine (no key, plain http on localhost). */
  local?: boolean;
  /** Offered in the interactive list; every preset works with --preset. */
  featured?: boolean;
  /** Known models of the service, with their limits. */
  models?: PresetModel[];
  headers?: Record<string, string>;
  auth?: ProviderConfig["auth"];
  capability?: ProviderConfig["capability"];
  /** The provider runs its own web search (anthropic kind): written as web_search = true. */
  webSearch?: boolean;
}

/** The whole catalog (presets.json, embedded in the binary). */
export const CATALOG: readonly Preset[] = (catalog as unknown as { presets: Preset[] }).presets;

/** The presets the interactive setup (terminal and web) offers, in order. */
export const PRESETS: readonly Preset[] = CATALOG.filter((p) => p.featured);

/** Entry fields a preset adds for a model: its context window, vision, headers, auth, capability. */
export function presetEntryFields(p: Preset | undefined, model: string | undefined): Partial<ProviderConfig> {
  if (!p) return {};
  const m = p.models?.find((x) => x.id === model);
  const capability = m?.capability ?? p.capability;
  return {
    ...(m?.contextWindow ? { context_window: m.contextWindow } : {}),
    ...(m?.vision ? { vision: true } : {}),
    ...(p.headers ? { headers: { ...p.headers } } : {}),
    ...(p.auth ? { auth: p.auth } : {}),
    ...(capability ? { capability } : {}),
    ...(p.webSearch ? { web_search: true } : {}),
  };
}

export function findPreset(id: string): Preset | undefined {
  const want = id.toLowerCase().replace(/[\s_-]/g, "");
  return CATALOG.find((p) => p.id.replace(/[\s_-]/g, "") === want || p.label.toLowerCase().replace(/[\s_-]/g, "") === want);
}

/** A key variable name derived from a provider name: "my-proxy" → MY_PROXY_API_KEY. */
export const keyEnvFor = (name: string): string => `${name.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "PROVIDER"}_API_KEY`.replace(/^(\d)/, "_$1");
