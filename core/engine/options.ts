// What createEngine (core/engine/engine.ts) takes. Apart from the front-end
// contract (types.ts), which must not reach the tool modules.
import type { ToolRegistry } from "../tools/registry.ts";
import type { ToolSource } from "../tools/sources.ts";
import type { McpServerSpec } from "../mcp/config.ts";
import type { PermissionMode } from "../protocol/modes.ts";
import type { EngineSession } from "./types.ts";

/** What `createEngine` (core/engine/index.ts) needs; everything but workspace has a default. */
export interface EngineOptions {
  /** The workspace directory (made absolute and symlink-resolved). */
  workspace: string;
  /** $REASONIX_HOME (default: reasonixHome()). Sessions live in <home>/sessions. */
  home?: string;
  /** Effective config values; loaded with loadConfig({cwd: workspace, home}) when absent. */
  config?: Record<string, unknown>;
  /**
   * Instead of `config`: loadConfig's whole result for this workspace and
   * home, when the caller has read it already (`reasonix run`). Used as if the
   * engine had loaded it, MCP servers included (no second read).
   */
  loaded?: import("../config/load.ts").LoadedConfig;
  /** Where each dotted key of `config` came from (LoadedConfig.sources), for error messages. */
  configSources?: Map<string, string>;
  /** With `config`: whether its project file was approved (LoadedConfig.trust.trusted). Default false. */
  projectTrusted?: boolean;
  /** With `config`: `--trust-project` (project commands, skills and hooks count as approved for this process). */
  trustProject?: boolean;
  /** No one can answer approvals: `ask` fails closed with a message naming the flag. */
  headless?: boolean;
  /** Overrides [permissions] mode. */
  permissionMode?: PermissionMode;
  /** Extra writable roots (--add-dir). */
  extraWriteRoots?: string[];
  /** Overrides [agent] max_steps. */
  maxSteps?: number;
  /**
   * Tools from outside the binary, synced at turn boundaries. The workspace's
   * MCP servers (core/mcp) are added unless `mcp` is false.
   */
  toolSources?: ToolSource[];
  /** Start the workspace's MCP servers (default true). */
  mcp?: boolean;
  /**
   * MCP servers a front end passes for this engine alone (an ACP client's
   * session/new), run as the user's own declarations next to the
   * workspace's; a passed server hides a configured one of the same name.
   */
  mcpServers?: McpServerSpec[];
  /** Tool registry to use (default: the built-in tools). */
  tools?: ToolRegistry;
  /**
   * Called with every user-facing session this engine opens (new, resumed,
   * forked, reopened on another model; never a subagent's), after it is
   * ready: the usage counters (core/telemetry) follow sessions through it.
   */
  onSessionOpen?: (session: EngineSession) => void;
  /** Provider retry tuning (tests shorten the delays). */
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number; maxRetryAfterMs?: number };
}
