// MCP servers as a front end lists them (`/mcp`): browser-safe.

export type McpTransport = "stdio" | "http" | "sse";
/** Where a server was declared: the user's config, the project's reasonix.toml, or .mcp.json. */
export type McpScope = "user" | "project" | "mcp.json";

/** One server as a running session sees it (the `/mcp` listing of a front end). */
export interface McpServerStatus {
  name: string;
  type: McpTransport;
  scope: McpScope;
  status: string;
  error?: string;
  tools: string[];
  prompts: string[];
  resources: string[];
}
