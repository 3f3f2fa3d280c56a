/**
 * MCP prompts and resources for the command catalog and @references:
 * `/mcp__<server>__<prompt> a b` fills the prompt's declared arguments in
 * order; `@<server>:<uri>` reads a resource. Both go through the server's
 * connection (started on demand, like a tool call).
 */
import { splitArgs } from "../commands/args.ts";
import type { CommandEntry, CommandSource } from "../commands/types.ts";
import type { McpManager } from "./manager.ts";
import { toolName } from "./tools.ts";

export function mcpCommandSource(manager: McpManager): CommandSource {
  return {
    id: "mcp",
    // Servers come up (and prompts change) while front ends show the catalog.
    stamp: () => manager.connections.map((c) => `${c.name}:${c.status}:${c.prompts.map((p) => `${p.name}/${p.description ?? ""}/${(p.arguments ?? []).map((a) => a.name).join(",")}`).join(";")}`).join("|"),
    list(): CommandEntry[] {
      const out: CommandEntry[] = [];
      for (const c of manager.connections) {
        for (const p of c.prompts) {
          const names = (p.arguments ?? []).map((a) => a.name);
          out.push({
            name: toolName(c.name, p.name),
            description: p.description ?? p.title ?? `prompt ${p.name} of MCP server ${c.name}`,
            ...(names.length ? { argumentHint: names.map((n, i) => (p.arguments![i]!.required ? `<${n}>` : `[${n}]`)).join(" ") } : {}),
            kind: "mcp-prompt",
            scope: "mcp",
            source: `mcp:${c.name}`,
            async expand(args, ctx) {
              const words = splitArgs(args);
              // Positional: the declared arguments in order; the last one takes the rest.
              const values: Record<string, string> = {};
              names.forEach((n, i) => {
                const v = i === names.length - 1 ? words.slice(i).join(" ") : words[i];
                if (v !== undefined && v !== "") values[n] = v;
              });
              return await c.promptText(p.name, values, ctx.signal);
            },
          });
        }
      }
      return out;
    },
  };
}

/** The `@server:uri` resolver: undefined for a name that is not a server here (the text stays literal). */
export function mcpResourceReader(manager: McpManager) {
  return async (server: string, uri: string, signal?: AbortSignal): Promise<string | undefined> => {
    const c = manager.get(server);
    if (!c) return undefined;
    try {
      return await c.resourceText(uri, signal);
    } catch (e) {
      return `[could not read ${uri} from MCP server ${server}: ${(e as Error).message}]`;
    }
  };
}
