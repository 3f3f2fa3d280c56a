// The chat's slash commands are the built-in list every front end reads
// (core/protocol/commands.ts): the web UI and the serve API refuse to send
// exactly these to the model, so the two lists must not drift.
import { describe, expect, test } from "bun:test";
import { slashCommands, type SlashContext } from "../chat/slash.ts";
import { plainPaint } from "../chat/cards.ts";
import type { CommandEntry } from "../../core/commands/types.ts";
import { BUILTIN_COMMANDS } from "../../core/protocol/commands.ts";

test("the chat runs exactly the built-in commands, with their descriptions", () => {
  expect(slashCommands.map((c) => ({ name: c.name, description: c.description, ...(c.args ? { args: c.args } : {}) }))).toEqual([...BUILTIN_COMMANDS]);
});

describe("wording of /help and /sessions", () => {
  const run = async (name: string, extra: Partial<SlashContext> = {}) => {
    const out: string[] = [];
    const ctx = { paint: plainPaint, print: (l: string[]) => out.push(...l), ...extra } as unknown as SlashContext;
    await slashCommands.find((c) => c.name === name)!.run(ctx, "");
    return out;
  };
  const entry = (name: string, kind: CommandEntry["kind"], scope: CommandEntry["scope"], source: string): CommandEntry => ({ name, description: `about ${name}`, kind, scope, source });

  test("/help labels each custom entry once: what it is and where it comes from, never the same word twice", async () => {
    const entries = [entry("docs", "builtin", "builtin", "built-in"), entry("init", "skill", "builtin", "built-in"), entry("greet", "command", "user", "/h/commands/greet.md"), entry("mine", "skill", "project", "/w/.reasonix/skills/mine")];
    const out = await run("help", { commands: { catalog: () => ({ entries }) } as any });
    const line = (n: string) => out.find((l) => l.startsWith(`  /${n} `))!;
    expect(line("docs")).toEndWith("about docs (built-in)");
    expect(line("init")).toEndWith("about init (skill, built-in)");
    expect(line("greet")).toEndWith("about greet (command, user)");
    expect(line("mine")).toEndWith("about mine (skill, project)");
    expect(out.join("\n")).not.toContain("builtin, builtin");
  });

  test("/sessions says 1 turn, 2 turns", async () => {
    const list = [
      { id: "20260101-000000-aaaaaa", turns: 1, title: "one", updatedAt: "2026-01-01T00:00:00Z" },
      { id: "20260101-000000-bbbbbb", turns: 2, title: "two", updatedAt: "2026-01-01T00:00:00Z" },
      { id: "20260101-000000-cccccc", turns: 0, title: "none", updatedAt: "2026-01-01T00:00:00Z" },
    ];
    const out = await run("sessions", { st: { session: { id: list[0]!.id }, engine: { listSessions: async () => list } } as any });
    expect(out[0]).toContain(" 1 turn  one");
    expect(out[1]).toContain(" 2 turns  two");
    expect(out[2]).toContain(" 0 turns  none");
  });
});
