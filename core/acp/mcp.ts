/**
 * MCP servers an ACP client passes in session/new, load or resume: started
 * like configured ones (core/mcp), as the user's own declarations (stdio
 * servers run inside the sandbox, like a user [[plugins]] entry without
 * `sandbox = false`), for that session only.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { specFrom, type McpServerSpec } from "../mcp/config.ts";

const pairs = (list: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (Array.isArray(list)) for (const v of list) if (v && typeof v.name === "string" && typeof v.value === "string") out[v.name] = v.value;
  return out;
};

/** The client's server list as specs; a bad entry is an invalid-params error naming it. */
export function clientMcpSpecs(servers: acp.McpServer[]): McpServerSpec[] {
  const names = new Set<string>();
  return servers.map((s, i) => {
    const field = `mcpServers[${i}]`;
    const raw = s as Record<string, unknown>;
    if (raw.type === "acp") throw RequestError.invalidParams({ field: `${field}.type` }, `${field}.type: MCP over ACP is not supported (use stdio, http or sse)`);
    const table: Record<string, unknown> = { name: raw.name, type: raw.type ?? "stdio", command: raw.command, args: raw.args, url: raw.url, env: pairs(raw.env), headers: pairs(raw.headers) };
    let spec: McpServerSpec;
    try {
      spec = specFrom(table, "user", `ACP ${field}`);
    } catch (e) {
      throw RequestError.invalidParams({ field }, `${field}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (names.has(spec.name)) throw RequestError.invalidParams({ field: `${field}.name` }, `${field}.name: "${spec.name}" is listed twice`);
    names.add(spec.name);
    return spec;
  });
}
