/** The engine's entry point: the workspace's MCP servers as a tool source, or none. */
import { getDotted, loadConfig, type LoadedConfig } from "../config/load.ts";
import { resolveServers, type McpServerSpec, type ResolvedServers } from "./config.ts";
import { McpManager } from "./manager.ts";

export interface WorkspaceMcpOptions {
  workspace: string;
  home: string;
  values: Record<string, unknown>;
  /** The workspace's loaded config when the caller has it (trust state included). */
  loaded?: LoadedConfig;
  /** The caller approved the project content for this process (--trust-project). */
  projectTrusted?: boolean;
  /** Servers a front end passes (an ACP client's): added to the configured ones, winning on a name. */
  passed?: McpServerSpec[];
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

function withPassed(r: ResolvedServers, passed: McpServerSpec[]): ResolvedServers {
  if (passed.length === 0) return r;
  const names = new Set(passed.map((s) => s.name));
  const servers = [...r.servers.filter((s) => !names.has(s.name)), ...passed].sort((a, b) => a.name.localeCompare(b.name));
  return { ...r, servers, shadowed: [...r.shadowed, ...r.servers.filter((s) => names.has(s.name))] };
}

export function workspaceMcp(o: WorkspaceMcpOptions): McpManager | undefined {
  let loaded = o.loaded;
  try {
    loaded ??= loadForMcp(o.workspace, o.home, o.projectTrusted);
  } catch {
    // The engine already reported a broken config; only the passed servers then.
  }
  const configured = loaded ? resolveServers(loaded, o.workspace) : { servers: [], shadowed: [], problems: [] };
  const resolved = withPassed(configured, o.passed ?? []);
  if (resolved.servers.length === 0) return undefined;
  return new McpManager({ workspace: o.workspace, home: o.home, config: o.values, resolved, graceMs: graceMs(o.values), env: o.env });
}
