// The model's `ask` in the compiled binary's terminal chat (tmux, scripted
// model): the question card is answered with j/Enter, with digits, Space and
// an own answer (in YOLO mode too: a question is not a permission), or
// dismissed with Esc; the answer is the tool result the model gets next, and
// the tool block it is sent is the same, byte for byte, before and after.
import { describe, expect, test } from "bun:test";
import { chatFixture, compiledChat, quit, ready, type Pane } from "./chat-helpers.ts";

const { skip, binary } = compiledChat("chat ask tests");
const f = chatFixture();

const ASK = (extra: Record<string, unknown> = {}) => ({
  name: "ask",
  arguments: { question: "Which database should the app use?", options: [{ label: "Postgres", description: "the server one" }, { label: "SQLite" }, { label: "MySQL" }], ...extra },
});

/** The card takes keys: its own hint says so (drawn once it is armed and the input is empty). */
const armed = (p: Pane) => p.waitForCurrent("Esc dismisses");
const selectedRow = (s: string): string | undefined => s.split("\n").find((l) => /^\s*›\s+\d\./.test(l));
const toolResult = (body: any): string => body.messages.findLast((m: any) => m.role === "tool")?.content;

async function asked(p: Pane): Promise<void> {
  await ready(p);
  p.send("set up the app");
  await p.waitFor("Which database should the app use?");
  await armed(p);
}

describe.skipIf(skip)("compiled binary: the ask card", () => {
  test("j moves, Enter picks; the answer is the tool result and the tool block is unchanged", async () => {
    await f.setup([{ toolCalls: [ASK()] }, { text: "Going with SQLite." }]);
    const p = f.chat(["chat"], { bin: [binary()], cols: 100, rows: 30 });
    await asked(p);
    expect(p.screen()).toContain("1. Postgres");
    expect(selectedRow(p.screen())).toBeUndefined();
    p.type("j");
    await p.waitFor((s) => selectedRow(s)?.includes("Postgres") === true);
    p.type("j");
    await p.waitFor((s) => selectedRow(s)?.includes("SQLite") === true);
    p.keys("Enter");
    await p.waitFor("Going with SQLite.");
    const [first, second] = f.llm.chatRequests();
    expect(toolResult(second!.body)).toBe("The user chose: SQLite");
    expect(JSON.stringify(second!.body.tools)).toBe(JSON.stringify(first!.body.tools));
    await quit(p);
  });

  test("YOLO: the question still waits; digits and Space toggle, an own answer is written in the card", async () => {
    await f.setup([{ toolCalls: [ASK({ multi_select: true, allow_text: true })] }, { text: "Both, plus a cache." }]);
    const p = f.chat(["chat", "--permission-mode", "yolo"], { bin: [binary()], cols: 100, rows: 30 });
    await asked(p);
    p.type("1");
    await p.waitFor("[x] Postgres");
    p.keys("Down");
    await p.waitFor((s) => selectedRow(s)?.includes("SQLite") === true);
    p.keys("Down");
    await p.waitFor((s) => selectedRow(s)?.includes("MySQL") === true);
    p.type(" ");
    await p.waitFor("[x] MySQL");
    p.keys("Down");
    await p.waitFor((s) => /›\s+✎ Other/.test(s));
    p.keys("Enter");
    await p.waitFor("typing goes to the answer");
    p.type("and redis");
    await p.waitFor("Other: and redis");
    p.keys("Enter");
    await p.waitFor("Both, plus a cache.");
    expect(toolResult(f.llm.chatRequests()[1]!.body)).toBe("The user chose: Postgres; MySQL\nThe user wrote: and redis");
    await quit(p);
  });

  test("Esc dismisses the question; the model is told and the turn goes on", async () => {
    await f.setup([{ toolCalls: [ASK()] }, { text: "I will pick one myself." }]);
    const p = f.chat(["chat"], { bin: [binary()], cols: 100, rows: 30 });
    await asked(p);
    p.keys("Escape");
    await p.waitFor("I will pick one myself.");
    expect(toolResult(f.llm.chatRequests()[1]!.body)).toBe("The user dismissed the question without answering.");
    await quit(p);
  });
});
