// `/goal` is listed the same way in the three command menus: the terminal
// chat's slash list, the web UI's catalog source (GET /api/commands) and ACP's
// available_commands_update — one entry (core/goal/command.ts GOAL_COMMAND).
import { expect, test } from "bun:test";
import { slashCommands } from "../chat/slash.ts";
import { sessionCommandSource } from "../../core/commands/session-commands.ts";
import { AVAILABLE_COMMANDS } from "../../core/acp/modes.ts";
import { GOAL_COMMAND } from "../../core/goal/command.ts";

test("/goal: same description and argument hint in the chat, the web UI catalog and ACP", async () => {
  const chat = slashCommands.find((c) => c.name === "goal")!;
  expect({ description: chat.description, hint: chat.args }).toEqual({ description: GOAL_COMMAND.description, hint: GOAL_COMMAND.argumentHint });
  const web = (await sessionCommandSource.list()).filter((e) => e.name === "goal");
  expect(web).toHaveLength(1);
  expect({ description: web[0]!.description, hint: web[0]!.argumentHint }).toEqual({ description: GOAL_COMMAND.description, hint: GOAL_COMMAND.argumentHint });
  const acp = AVAILABLE_COMMANDS.filter((c) => c.name === "goal");
  expect(acp).toHaveLength(1);
  expect({ description: acp[0]!.description, hint: (acp[0]!.input as { hint: string }).hint }).toEqual({ description: GOAL_COMMAND.description, hint: GOAL_COMMAND.argumentHint });
  expect(GOAL_COMMAND.argumentHint).toBe("<objective> | status | pause | resume | clear");
});
