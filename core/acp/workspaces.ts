/**
 * ACP cwd → engine. One engine per workspace, created like every other front
 * end does (config, workspace trust and sandbox rules from loadConfig), and
 * the shared JSONL session store for load/list/delete.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import { loadConfig } from "../config/load.ts";
import { createEngine, resolveWorkspace } from "../engine/index.ts";
import type { Engine, PermissionMode, SessionSummary } from "../engine/types.ts";
import type { EngineOptions } from "../engine/options.ts";
import { homePaths } from "../home.ts";
import { SessionStore } from "../sessions/store.ts";
import type { AcpLog } from "./log.ts";
import { toRequestError } from "./errors.ts";
import { clientToolRegistry } from "./client-tools.ts";
import { clientMcpSpecs } from "./mcp.ts";
import type { McpServerSpec } from "../mcp/config.ts";

export interface WorkspaceOptions {
  home: string;
  /** Extra engine options (tests shorten retries). */
  engine?: Partial<Omit<EngineOptions, "workspace" | "home" | "config">>;
}

export interface WorkspaceEngine {
  engine: Engine;
  /** An engine of its own (client-passed MCP servers): closed with its session. */
  own?: boolean;
  /** The permission mode new sessions start in. */
  mode: PermissionMode;
}

export class Workspaces {
  private readonly engines = new Map<string, Promise<WorkspaceEngine>>();
  private readonly store: SessionStore;
  private client: acp.AgentContext | undefined;
  /** Set by the agent: routes "bash runs in terminal X" to the session. */
  onTerminal?: (sessionId: string, terminalId: string) => void;
  private caps: acp.ClientCapabilities = {};

  constructor(
    private readonly opts: WorkspaceOptions,
    private readonly log: AcpLog,
  ) {
    this.store = new SessionStore(homePaths(opts.home).sessions);
  }

  /** The client and what it offers (fs, terminal), from initialize. */
  setClient(client: acp.AgentContext, caps: acp.ClientCapabilities): void {
    this.client = client;
    this.caps = caps;
  }

  async forCwd(cwd: unknown, mcpServers?: acp.McpServer[] | null): Promise<WorkspaceEngine> {
    if (typeof cwd !== "string" || !isAbsolute(cwd)) throw RequestError.invalidParams({ field: "cwd" }, "cwd must be an absolute path");
    let workspace: string;
    try {
      workspace = resolveWorkspace(cwd);
    } catch (e) {
      throw toRequestError(e, "cwd");
    }
    // The client's MCP servers belong to one session: an engine of its own, not the shared one.
    if (mcpServers && mcpServers.length > 0) return { ...(await this.create(workspace, clientMcpSpecs(mcpServers))), own: true };
    let p = this.engines.get(workspace);
    if (!p) {
      p = this.create(workspace);
      this.engines.set(workspace, p);
      p.catch(() => this.engines.delete(workspace));
    }
    return p;
  }

  private async create(workspace: string, mcp?: McpServerSpec[]): Promise<WorkspaceEngine> {
    try {
      const cfg = loadConfig({ cwd: workspace, home: this.opts.home });
      for (const w of cfg.warnings) this.log.info(`${workspace}: ${w}`);
      const perms = (cfg.values.permissions ?? {}) as { mode?: PermissionMode };
      const mode = this.opts.engine?.permissionMode ?? perms.mode ?? "ask";
      const tools = clientToolRegistry(() => ({ client: this.client, caps: this.caps, log: this.log, terminalStarted: (s, t) => this.onTerminal?.(s, t) }));
      const engine = createEngine({
        tools,
        ...(mcp ? { mcpServers: mcp } : {}),
        ...this.opts.engine,
        workspace,
        home: this.opts.home,
        config: cfg.values,
        configSources: cfg.sources,
        projectTrusted: cfg.trust.trusted,
      });
      return { engine, mode };
    } catch (e) {
      throw toRequestError(e, "cwd");
    }
  }

  /** The engine of a stored session's workspace; `cwd`, when given, must be that workspace. */
  async forSession(id: string, cwd?: string | null, mcpServers?: acp.McpServer[] | null): Promise<WorkspaceEngine> {
    let workspace: string;
    try {
      workspace = this.store.load(id).meta.workspace;
    } catch (e) {
      throw toRequestError(e, "sessionId");
    }
    this.sameWorkspace(id, workspace, cwd);
    return this.forCwd(workspace, mcpServers);
  }

  /** A `cwd` given with a session must be that session's workspace (refused naming both otherwise). */
  sameWorkspace(id: string, workspace: string, cwd?: string | null): void {
    if (!cwd) return;
    let real: string;
    try {
      real = resolveWorkspace(cwd);
    } catch (e) {
      throw toRequestError(e, "cwd");
    }
    if (real !== workspace) throw RequestError.invalidParams({ field: "cwd" }, `cwd: session ${id} belongs to workspace ${workspace}, not ${real}`);
  }

  list(cwd?: string): SessionSummary[] {
    const all = this.store.list();
    if (!cwd) return all;
    let real = cwd;
    try {
      real = resolveWorkspace(cwd);
    } catch {
      // A directory that is gone has no sessions worth listing, but do not fail the list.
    }
    return all.filter((s) => s.workspace === real || s.workspace === cwd);
  }

  async deleteSession(id: string): Promise<void> {
    const ws = await this.forSession(id);
    try {
      await ws.engine.deleteSession(id);
    } catch (e) {
      throw toRequestError(e, "sessionId");
    }
  }

  async close(): Promise<void> {
    const all = await Promise.allSettled([...this.engines.values()]);
    for (const r of all) if (r.status === "fulfilled") await r.value.engine.close().catch(() => {});
    this.engines.clear();
  }
}
