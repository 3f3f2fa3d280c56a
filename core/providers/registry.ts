import { ConfigError } from "../errors.ts";
import type { Provider, ProviderConfig } from "./types.ts";

export interface ProviderDeps {
  /** Resolves api_key_env from $REASONIX_HOME/.env only (never the shell env). */
  secret(name: string): string | undefined;
  /** Where the config came from, for error messages. */
  configSource?: string;
}

export type ProviderFactory = (cfg: ProviderConfig, deps: ProviderDeps) => Provider;

const kinds = new Map<string, ProviderFactory>();

/** Provider kinds register themselves at import time (see ./index.ts). */
export function registerProviderKind(kind: string, factory: ProviderFactory): void {
  if (kinds.has(kind)) throw new Error(`provider kind "${kind}" registered twice`);
  kinds.set(kind, factory);
}

export function providerKinds(): string[] {
  return [...kinds.keys()].sort();
}

export function createProvider(cfg: ProviderConfig, deps: ProviderDeps): Provider {
  const factory = kinds.get(cfg.kind);
  if (!factory) {
    throw new ConfigError(deps.configSource ?? "config", `providers "${cfg.name}": unknown kind "${cfg.kind}" (known: ${providerKinds().join(", ")})`);
  }
  return factory(cfg, deps);
}
