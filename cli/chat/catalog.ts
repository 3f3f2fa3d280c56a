// The workspace's command catalog for the chat, loaded after the first frame
// (it reads the documentation index, skills and trust records).
import { workspaceCommands, type CommandEntry, type CommandRegistry, type CommandSource } from "../../core/commands/index.ts";
import { slashCommands } from "./slash.ts";
import { cleanText } from "./sanitize.ts";
import { commandDescription, language } from "../../core/protocol/i18n/index.ts";

/**
 * The workspace's command catalog (core/commands) with the chat's own
 * commands as built-ins: custom commands, skills, MCP prompts and `/docs` come from there,
 * and a project or user command of the same name wins (ours stay reachable
 * as `/reasonix:<name>`).
 */
export function chatCommands(workspace: string, home: string, values: Record<string, unknown>, engineSources: CommandSource[] = []): CommandRegistry {
  const reg = workspaceCommands({ workspace, home, values });
  // The MCP servers' prompts (/mcp__<server>__<prompt>), listed as the servers come up.
  for (const s of engineSources) reg.registerSource(s);
  reg.registerSource({
    id: "chat",
    // Descriptions in the interface language: the catalog (and the / menu) is rebuilt when /language changes it.
    list: (): CommandEntry[] => slashCommands.map((c) => ({ name: c.name, description: commandDescription(c.name, c.description), argumentHint: c.args, kind: "builtin", scope: "builtin", source: "chat" })),
    stamp: () => language(),
  });
  return reg;
}

/** The `/` menu's entries from the catalog: names and descriptions come from files in the workspace and MCP servers, so they are cleaned. */
export function chatMenu(reg: CommandRegistry) {
  return () => {
    const entries = reg.catalog().entries;
    return { key: entries, commands: () => entries.map((e) => ({ name: cleanText(e.name), description: cleanText(e.description), argumentHint: e.argumentHint && cleanText(e.argumentHint) })) };
  };
}
