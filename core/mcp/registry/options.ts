/**
 * Where the MCP Registry is for one command or request: `[mcp] registry_url`
 * (a user-config-only key: a repository's reasonix.toml cannot point it
 * elsewhere), the answer cache under the state directory, and the timeout.
 */
import { join } from "node:path";
import { getDotted, type LoadedConfig } from "../../config/load.ts";
import { ReasonixError } from "../../errors.ts";
import { stateRootOf } from "../config.ts";
import { DEFAULT_REGISTRY_URL, DEFAULT_TIMEOUT_MS, type RegistryOptions } from "./client.ts";

export function registryOptionsOf(loaded: LoadedConfig, timeoutMs = DEFAULT_TIMEOUT_MS): RegistryOptions {
  const url = getDotted(loaded.values, "mcp.registry_url");
  const baseUrl = typeof url === "string" && url ? url : DEFAULT_REGISTRY_URL;
  try {
    new URL(baseUrl);
  } catch {
    throw new ReasonixError("config", `[mcp] registry_url ${baseUrl} is not a URL`, { exitCode: 2 });
  }
  return { baseUrl, cacheDir: join(stateRootOf(loaded.home), "mcp-registry"), timeoutMs };
}
