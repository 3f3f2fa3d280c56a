/** The engine's entry point: the workspace's MCP servers as a tool source, or none. */
import { getDotted, loadConfig, type LoadedConfig } from "../config/load.ts";
import { resolveServers } from "./config.ts";
import { McpManager } from "./manager.ts";

export interface WorkspaceMcpOptions {
  workspace: string;
  home: string;
  values: Record<string, unknown>;
  /** The workspace's loaded config when the caller has it (trust state included). */
  loaded?: LoadedConfig;
  /** The caller approved the project content for this process (--trust-project). */
  projectTrusted?: boolean;
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_GRACE_S = 3;

export function graceMs(values: Record<string, unknown>): number {
  const v = Number(getDotted(values, "mcp.startup_grace_seconds") ?? DEFAULT_GRACE_S);
  return Number.isFinite(v) && v >= 0 ? v * 1000 : DEFAULT_GRACE_S * 1000;
}

/** Load the workspace's config the way its front end did (records, or --trust-project). */
export function loadForMcp(workspace: string, home: string, projectTrusted?: boolean): LoadedConfig {
  const l = loadConfig({ cwd: workspace, home });
  return !l.trust.trusted && projectTrusted ? loadConfig({ cwd: workspace, home, trustProject: true }) : l;
}

export function workspaceMcp(o: WorkspaceMcpOptions): McpManager | undefined {
  let loaded = o.loaded;
  try {
    loaded ??= loadForMcp(o.workspace, o.home, o.projectTrusted);
  } catch {
    // The engine already reported a broken config; MCP adds nothing then.
    return undefined;
  }
  const resolved = resolveServers(loaded, o.workspace);
  if (resolved.servers.length === 0) return undefined;
  return new McpManager({ workspace: o.workspace, home: o.home, config: o.values, resolved, graceMs: graceMs(o.values), env: o.env });
}
