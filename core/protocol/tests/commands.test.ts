// The command parsers the chat, ACP, serve and the web UI share (core/protocol/commands.ts).
import { expect, test } from "bun:test";
import { BUILTIN_COMMANDS, builtinCommand, parseNote, parseSlash, sessionCommandName } from "../commands.ts";

test("parseSlash: name and rest, /reasonix: prefix; paths and plain text are not commands", () => {
  expect(parseSlash("/model t")).toEqual({ name: "model", arg: "t" });
  expect(parseSlash("  /reasonix:compact  ")).toEqual({ name: "compact", arg: "" });
  expect(parseSlash("/goal fix the build\nand test")).toEqual({ name: "goal", arg: "fix the build\nand test" });
  expect(parseSlash("/usr/bin/env")).toBeUndefined();
  expect(parseSlash("hello /model")).toBeUndefined();
});

test("builtinCommand: only the built-in names; custom commands stay prompts", () => {
  expect(builtinCommand("/help")?.command.name).toBe("help");
  expect(builtinCommand("/mode read-only")).toMatchObject({ command: { name: "mode" }, arg: "read-only" });
  expect(builtinCommand("/review this")).toBeUndefined();
  expect(new Set(BUILTIN_COMMANDS.map((c) => c.name)).size).toBe(BUILTIN_COMMANDS.length);
});

test("sessionCommandName and parseNote", () => {
  expect(sessionCommandName("/compact")).toBe("compact");
  expect(sessionCommandName("/reasonix:mcp ")).toBe("mcp");
  expect(sessionCommandName("/compact now")).toBeUndefined();
  expect(sessionCommandName("/model")).toBeUndefined();
  expect(parseNote("# keep commits small")).toBe("keep commits small");
  expect(parseNote("## heading")).toBeUndefined();
  expect(parseNote("#!/bin/sh")).toBeUndefined();
  expect(parseNote("#a\nb")).toBeUndefined();
});

test("/goal is parsed once for every front end: the argument (also after /reasonix:) and the action", async () => {
  const { goalArg, parseGoalCommand } = await import("../commands.ts");
  expect(goalArg("/goal fix the build")).toBe("fix the build");
  expect(goalArg(" /reasonix:goal pause ")).toBe("pause");
  expect(goalArg("/goal")).toBe("");
  expect(goalArg("/goals")).toBeUndefined();
  expect(goalArg("please /goal x")).toBeUndefined();
  expect(parseGoalCommand("")).toEqual({ action: "status" });
  expect(parseGoalCommand("PAUSE")).toEqual({ action: "pause" });
  expect(parseGoalCommand("fix it")).toEqual({ action: "start", objective: "fix it" });
  // The web UI and ACP read typed text with it (they used to carry regexes of their own; ACP's missed /reasonix:goal).
  const { goalCommand } = await import("../../serve/ui/src/goal.ts");
  const { goalControlOf } = await import("../../acp/goal.ts");
  expect(goalCommand("/reasonix:goal pause")).toEqual({ action: "pause" });
  expect(goalControlOf("/reasonix:goal pause")).toBe("pause");
});
