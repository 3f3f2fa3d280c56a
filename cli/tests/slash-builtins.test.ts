// The chat's slash commands are the built-in list every front end reads
// (core/protocol/commands.ts): the web UI and the serve API refuse to send
// exactly these to the model, so the two lists must not drift.
import { expect, test } from "bun:test";
import { slashCommands } from "../chat/slash.ts";
import { BUILTIN_COMMANDS } from "../../core/protocol/commands.ts";

test("the chat runs exactly the built-in commands, with their descriptions", () => {
  expect(slashCommands.map((c) => ({ name: c.name, description: c.description, ...(c.args ? { args: c.args } : {}) }))).toEqual([...BUILTIN_COMMANDS]);
});
