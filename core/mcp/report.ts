/**
 * What `reasonix mcp list/get/test` and `doctor capabilities` show: the
 * declared servers (static: nothing starts) and, for `test`, one live start
 * with timings and the server's stderr when it fails.
 */
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { resolveServers, type McpServerSpec } from "./config.ts";
import { McpConnection } from "./connection.ts";
import { toolName } from "./tools.ts";
import type { McpServerStatus } from "../protocol/mcp.ts";

export interface ServerRow {
  name: string;
  type: McpServerSpec["type"];
  scope: McpServerSpec["scope"];
  file: string;
  /** What it runs or where it connects (`${VAR}` left unexpanded). */
  target: string;
  enabled: boolean;
  sandbox: boolean;
  /** "configured" (would start), "disabled", or "blocked" with `reason`. */
  state: "configured" | "disabled" | "blocked";
  reason?: string;
  /** Same-name declarations this one hides. */
  shadows: { scope: McpServerSpec["scope"]; file: string }[];
}

export const targetOf = (s: McpServerSpec): string => (s.type === "stdio" ? [s.command, ...s.args].join(" ") : s.url ?? "");

export function serverRows(loaded: LoadedConfig, workspace: string): { rows: ServerRow[]; problems: string[] } {
  const r = resolveServers(loaded, workspace);
  const rows = r.servers.map((s) => ({
    name: s.name,
    type: s.type,
    scope: s.scope,
    file: s.file,
    target: targetOf(s),
    enabled: s.enabled,
    sandbox: s.type === "stdio" ? s.sandbox : false,
    state: s.blocked ? ("blocked" as const) : s.enabled ? ("configured" as const) : ("disabled" as const),
    ...(s.blocked ? { reason: s.blocked } : {}),
    shadows: r.shadowed.filter((x) => x.name === s.name).map((x) => ({ scope: x.scope, file: x.file })),
  }));
  return { rows, problems: r.problems };
}

export interface TestReport {
  name: string;
  ok: boolean;
  status: string;
  error?: string;
  backend?: string;
  server?: { name: string; version: string };
  timings: { connect?: number; list?: number; total: number };
  tools: { name: string; raw: string; readOnly: boolean }[];
  prompts: string[];
  resources: string[];
  stderr?: string;
}

/** Start one server, list what it offers, stop it. */
export async function testServer(spec: McpServerSpec, ctx: { workspace: string; home: string; config: Record<string, unknown>; env?: NodeJS.ProcessEnv }): Promise<TestReport> {
  const conn = new McpConnection(spec.enabled ? spec : { ...spec, enabled: true }, ctx);
  const t0 = performance.now();
  await conn.start();
  const total = Math.round(performance.now() - t0);
  const ok = conn.status === "ready";
  const stderr = conn.stderr().trim();
  const report: TestReport = {
    name: spec.name,
    ok,
    status: conn.status,
    ...(conn.error ? { error: conn.error } : {}),
    ...(conn.backend ? { backend: conn.backend } : {}),
    ...(conn.serverInfo ? { server: conn.serverInfo } : {}),
    timings: { ...conn.timings, total },
    tools: conn.tools.map((t) => ({ name: toolName(spec.name, t.name), raw: t.name, readOnly: t.annotations?.readOnlyHint === true })),
    prompts: conn.prompts.map((p) => p.name),
    resources: conn.resources.map((r) => r.uri),
    ...(!ok && stderr ? { stderr } : {}),
  };
  await conn.close();
  return report;
}

/**
 * Start the server NAME as the config of WORKSPACE declares it, once (what
 * `reasonix mcp install/import` and the web UI do right after writing it).
 * A declaration that cannot start (blocked, or gone) is a failed report.
 */
export async function testDeclared(name: string, o: { workspace: string; home: string }): Promise<TestReport> {
  const loaded = loadConfig({ cwd: o.workspace, home: o.home });
  const spec = resolveServers(loaded, o.workspace).servers.find((s) => s.name === name);
  const failed = (status: string, error: string): TestReport => ({ name, ok: false, status, error, timings: { total: 0 }, tools: [], prompts: [], resources: [] });
  if (!spec) return failed("missing", `no MCP server named "${name}" in the config`);
  if (spec.blocked) return failed("blocked", spec.blocked);
  return testServer(spec, { workspace: o.workspace, home: loaded.home, config: loaded.values });
}

export type { McpServerStatus };

export function serverStatuses(conns: readonly { spec: McpServerSpec; status: string; error?: string; tools: { name: string }[]; prompts: { name: string }[]; resources: { uri: string }[] }[]): McpServerStatus[] {
  return conns.map((c) => ({
    name: c.spec.name,
    type: c.spec.type,
    scope: c.spec.scope,
    status: c.status,
    ...(c.error ? { error: c.error } : {}),
    tools: c.tools.map((t) => toolName(c.spec.name, t.name)),
    prompts: c.prompts.map((p) => `/${toolName(c.spec.name, p.name)}`),
    resources: c.resources.map((r) => `@${c.spec.name}:${r.uri}`),
  }));
}

/** The text of a `/mcp` listing. */
export function formatStatuses(list: McpServerStatus[]): string {
  if (list.length === 0) return "no MCP servers (reasonix mcp add NAME -- CMD, or see reasonix docs show mcp.md)";
  return list
    .map((s) => {
      const head = `${s.name} [${s.type}, ${s.scope}] ${s.status}${s.error ? `: ${s.error.split("\n")[0]}` : ""}`;
      const lines = [head];
      if (s.tools.length) lines.push(`  tools: ${s.tools.join(", ")}`);
      if (s.prompts.length) lines.push(`  prompts: ${s.prompts.join(", ")}`);
      if (s.resources.length) lines.push(`  resources: ${s.resources.slice(0, 20).join(", ")}${s.resources.length > 20 ? ` … (${s.resources.length})` : ""}`);
      return lines.join("\n");
    })
    .join("\n");
}
