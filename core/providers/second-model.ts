/**
 * A second model beside the session's own (the Guardian's reviewer, the
 * planner): named by a user-only setting such as `[guardian] model` or
 * `[agent] planner_model`, resolved against the user's provider entries.
 * A name that matches nothing is a config error naming the setting.
 */
import { ConfigError } from "../errors.ts";
import { modelChoices, selectModel, type ModelChoice } from "./config.ts";
import { createProvider, type ProviderDeps } from "./registry.ts";
import type { Provider, ProviderConfig } from "./types.ts";

export interface SecondModel {
  provider: Provider;
  /** Display name (entry, or entry/model). */
  name: string;
}

export function secondModel(o: {
  entries: ProviderConfig[];
  /** The setting's value (entry name, entry/model, or a model id). */
  wanted: string;
  /** Dotted setting, e.g. "guardian.model", for the error message. */
  setting: string;
  /** The file that set it. */
  source?: string;
  deps: ProviderDeps;
}): SecondModel {
  let choice: ModelChoice;
  try {
    choice = selectModel(o.entries, o.wanted, undefined);
  } catch {
    const known = modelChoices(o.entries).map((c) => c.name).join(", ") || "none";
    throw new ConfigError(o.source ?? "config", `${o.setting} = "${o.wanted}" matches no [[providers]] entry (known: ${known})`);
  }
  return { provider: createProvider({ ...choice.entry, model: choice.model }, o.deps), name: choice.name };
}
