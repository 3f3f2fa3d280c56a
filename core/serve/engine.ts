import { homePaths } from "../home.ts";
import { SecretStore } from "../secrets/dotenv.ts";
import type { EngineFactory } from "./sessions.ts";
import type { EngineOptions } from "../engine/options.ts";

/**
 * The real engine, built from the user's config for a workspace. Imported
 * lazily: the engine pulls in providers and tools, which `--help` never needs.
 */
export async function engineFactoryFromConfig(home: string, onSessionOpen?: EngineOptions["onSessionOpen"]): Promise<EngineFactory> {
  const { createEngine } = await import("../engine/index.ts");
  return ({ workspace }) => createEngine({ workspace, home, onSessionOpen });
}

/** Stores a provider key in $REASONIX_HOME/.env (0600) for the setup page. */
export function providerKeyWriter(home: string): (envName: string, value: string) => void {
  return (envName, value) => new SecretStore(homePaths(home).dotenv).set(envName, value);
}
