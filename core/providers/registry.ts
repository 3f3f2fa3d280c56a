import { ConfigError } from "../errors.ts";
import { homePaths } from "../home.ts";
import { ProviderError } from "./errors.ts";
import { pricesFor, type Prices } from "./pricing.ts";
import type { Provider, ProviderConfig } from "./types.ts";

export interface ProviderDeps {
  /** Resolves api_key_env from $REASONIX_HOME/.env only (never the shell env). */
  secret(name: string): string | undefined;
  /** Where the config came from, for error messages. */
  configSource?: string;
  /** The .env file secret() reads, named in messages (default: $REASONIX_HOME/.env's real path). */
  secretsFile?: string;
}

/** The entry's key from $REASONIX_HOME/.env; undefined when it needs none. */
export function providerKey(cfg: ProviderConfig, deps: ProviderDeps): string | undefined {
  const env = cfg.api_key_env;
  if (!env) return undefined;
  const v = deps.secret(env);
  if (!v) {
    const dotenv = deps.secretsFile ?? homePaths().dotenv;
    throw new ProviderError("config", `provider "${cfg.name}": api_key_env ${env} has no value in ${dotenv}`, {
      hint: `store it with \`reasonix setup key ${cfg.name}\`, or add a line ${env}=<your key> to ${dotenv}; keys are never read from the shell environment`,
    });
  }
  return v;
}

/** What every provider kind shares: its config entry and the key lookup. */
export abstract class ConfiguredProvider {
  constructor(
    protected readonly cfg: ProviderConfig,
    protected readonly deps: ProviderDeps,
  ) {}
  get name() { return this.cfg.name; }
  get model() { return this.cfg.model!; }
  get contextWindow() { return this.cfg.context_window ?? 0; }
  get vision() { return this.cfg.vision === true; }
  /** The model's price: the entry's `prices`, else the embedded rate card (pricing.ts). */
  get prices(): Prices | undefined { return pricesFor(this.cfg, this.cfg.model!); }
  protected key(): string | undefined {
    return providerKey(this.cfg, this.deps);
  }
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
