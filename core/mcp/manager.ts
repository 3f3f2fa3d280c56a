/**
 * The workspace's MCP servers as one tool source for the engine. Servers
 * start in the background when the first session opens; a turn waits for
 * cold ones at most `[mcp] startup_grace_seconds` and then goes on without
 * them (they keep starting; their tools join at a later turn boundary).
 *
 * Cache rule: the snapshot's version changes only when some server's tool
 * list really changed (a list_changed whose list differs, a server that came
 * online). A crash and restart with the same tools changes nothing, and the
 * engine applies a change only at the next turn, so each change costs the
 * prompt cache one miss, never one per step.
 */
import type { ToolSnapshot, ToolSource } from "../tools/sources.ts";
import type { ToolDefinition } from "../tools/types.ts";
import type { McpServerSpec, ResolvedServers } from "./config.ts";
import { McpConnection } from "./connection.ts";
import { adaptTool, toolPrefix } from "./tools.ts";

export interface ManagerOptions {
  workspace: string;
  home: string;
  /** Effective config values (sandbox section, credential names, [mcp]). */
  config: Record<string, unknown>;
  resolved: ResolvedServers;
  /** How long settle() waits for servers still starting. */
  graceMs: number;
  env?: NodeJS.ProcessEnv;
}

export class McpManager implements ToolSource {
  readonly connections: McpConnection[];
  readonly problems: string[];
  private version = 0;
  private cached?: ToolSnapshot;
  private all?: Promise<void>;
  private scheduled?: ReturnType<typeof setTimeout>;
  /** The failure last reported per server (takeWarnings). */
  private readonly warned = new Map<string, string>();

  constructor(private readonly opts: ManagerOptions) {
    this.problems = opts.resolved.problems;
    this.connections = opts.resolved.servers.map(
      (spec: McpServerSpec) =>
        new McpConnection(spec, { workspace: opts.workspace, home: opts.home, config: opts.config, env: opts.env, onToolsChanged: () => this.version++ }),
    );
  }

  get(name: string): McpConnection | undefined {
    return this.connections.find((c) => c.name === name);
  }

  /** Start every enabled, allowed server in the background (once). */
  start(): Promise<void> {
    this.all ??= Promise.all(this.connections.map((c) => c.start())).then(() => {});
    return this.all;
  }

  async settle(signal?: AbortSignal): Promise<void> {
    const all = this.start();
    if (this.connections.every((c) => c.status !== "starting" && c.status !== "idle")) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      all,
      new Promise<void>((r) => (timer = setTimeout(r, this.opts.graceMs))),
      new Promise<void>((r) => {
        if (!signal) return;
        if (signal.aborted) return r();
        onAbort = () => r();
        signal.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }

  /**
   * The first snapshot (a session opening) also starts the servers, in the
   * background once the session has been handed out (settle() starts them
   * at once if a turn comes first).
   */
  snapshot(): ToolSnapshot {
    if (!this.all && !this.scheduled) this.scheduled = setTimeout(() => void this.start(), 0);
    if (this.cached?.version === this.version) return this.cached;
    const tools: ToolDefinition[] = [];
    const seen = new Set<string>();
    for (const c of this.connections) {
      for (const t of c.tools) {
        const def = adaptTool(c, t);
        if (seen.has(def.name)) continue; // two raw names that clean to one: the first wins
        seen.add(def.name);
        tools.push(def);
      }
    }
    tools.sort((a, b) => a.name.localeCompare(b.name));
    this.cached = { version: this.version, tools };
    return this.cached;
  }

  /** Servers that failed to start or went down since the last call: one line each (the cause and its stderr), said once per failure. */
  takeWarnings(): string[] {
    const out: string[] = [];
    for (const c of this.connections) {
      if (c.status !== "failed" || !c.error) continue;
      if (this.warned.get(c.name) === c.error) continue;
      this.warned.set(c.name, c.error);
      out.push(`MCP server "${c.name}" is unavailable: ${c.error}`);
    }
    return out;
  }

  /** For a tool call to `mcp__<server>__…` of a server that is not up: why. */
  unavailable(name: string): string | undefined {
    const c = this.connections.filter((x) => name.startsWith(toolPrefix(x.name))).sort((a, b) => b.name.length - a.name.length)[0];
    if (!c || c.status === "ready") return undefined;
    const why = c.status === "failed" || c.status === "blocked" ? c.error : c.status === "disabled" ? "it is disabled (enabled = false)" : "it is still starting";
    return `MCP server "${c.name}" is unavailable: ${why ?? "unknown error"}`;
  }

  async close(): Promise<void> {
    clearTimeout(this.scheduled);
    await Promise.all(this.connections.map((c) => c.close()));
  }
}
