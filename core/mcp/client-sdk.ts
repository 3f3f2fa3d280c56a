/**
 * The MCP SDK's client half, loaded by core/mcp/connection.ts on the first
 * connect (`await import`): evaluating it (its zod schemas, the transports)
 * costs ~100 ms of CPU, which a run without MCP servers, or one that never
 * reaches them before its first request, should not pay at startup.
 */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
export { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { ElicitRequestSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
