// What `available_commands_update` lists: the agent's own /mode and /model,
// then the workspace's command catalog (core/commands) — custom commands,
// skills, /docs — which the engine expands when the client sends them back
// as prompt text.
import type * as acp from "@agentclientprotocol/sdk";
import { workspaceCommands } from "../commands/index.ts";
import { sessionCommandSource } from "../commands/session-commands.ts";
import type { Engine } from "../engine/types.ts";
import { loadConfig } from "../config/load.ts";
import { reasonixHome } from "../home.ts";
import type { AcpLog } from "./log.ts";
import { AVAILABLE_COMMANDS } from "./modes.ts";

/** `engine`: adds /compact, /mcp and the MCP servers' prompts (those that are up). */
export function availableCommands(workspace: string, home: string | undefined, log?: AcpLog, engine?: Engine): acp.AvailableCommand[] {
  try {
    const h = home ?? reasonixHome();
    const reg = workspaceCommands({ workspace, home: h, values: loadConfig({ cwd: workspace, home: h }).values });
    if (engine) {
      reg.registerSource(sessionCommandSource);
      for (const s of engine.commandSources()) reg.registerSource(s);
    }
    // The agent answers /mode and /model itself, so catalog entries of those names cannot be reached here.
    const own = new Set(AVAILABLE_COMMANDS.map((c) => c.name));
    const extra = reg
      .catalog()
      .entries.filter((e) => (e.expand || e.source === "session") && !own.has(e.name))
      .map((e): acp.AvailableCommand => ({ name: e.name, description: e.description || `/${e.name}`, ...(e.argumentHint ? { input: { hint: e.argumentHint } } : {}) }));
    return [...AVAILABLE_COMMANDS, ...extra];
  } catch (e) {
    log?.info(`${workspace}: custom commands and skills not listed: ${e instanceof Error ? e.message : String(e)}`);
    return AVAILABLE_COMMANDS;
  }
}
