// Tool output in the compiled binary's chat (tmux): a bash card shows the
// first lines of its output and how many more; Ctrl-O turns verbose display
// on, printing the newest folded output in full, and off again; Ctrl-T opens
// the whole transcript (every card, every line) in a scrollable view that
// closes back to the chat as it was.
import { describe, expect, test } from "bun:test";
import { answer, chatFixture, compiledChat, quit } from "./chat-helpers.ts";

const { skip, binary } = compiledChat("chat tool output test");

const f = chatFixture();
const lines = (word: string, n: number) => ({ name: "bash", arguments: { command: `printf '${word}-%s\\n' $(seq 1 ${n})` } });
const has = (s: string, line: string) => s.split("\n").some((l) => l.trim() === line);

describe.skipIf(skip)("compiled binary: tool output in the chat", () => {
  test("a bash card shows its first lines and +N lines; Ctrl-O (verbose on) expands the newest, again folds; Ctrl-T shows the transcript", async () => {
    await f.setup([{ toolCalls: [lines("alpha", 30)] }, { toolCalls: [lines("beta", 40)] }, { text: "All done." }]);
    const p = f.chat([], { bin: [binary()], cols: 100, rows: 30 });
    await p.waitFor("mode ask");
    p.send("run both");
    await p.waitFor("$ printf 'alpha");
    await answer(p, 1);
    await p.waitFor("$ printf 'beta");
    await answer(p, 1);
    let all = await p.waitFor("All done.", { all: true });
    for (const l of ["alpha-1", "alpha-4", "beta-1", "beta-4"]) expect(has(all, l)).toBe(true);
    for (const l of ["alpha-5", "alpha-30", "beta-5", "beta-40"]) expect(has(all, l)).toBe(false);
    expect(all).toContain("+26 lines");
    expect(all).toContain("+36 lines");

    // Ctrl-O: verbose on, the newest card in full (older ones are in Ctrl-T's transcript); again: verbose off.
    p.keys("C-o");
    all = await p.waitFor((s) => has(s, "beta-40") && s.includes("verbose on"), { all: true });
    expect(has(all, "alpha-30")).toBe(false);
    p.keys("C-o");
    await p.waitFor("verbose off");

    // Ctrl-T: the transcript view, from its end; Home goes to the prompt and the first card.
    const before = p.all();
    p.keys("C-t");
    let s = await p.waitFor((x) => x.includes("transcript ·") && x.includes("All done."));
    expect(has(s, "beta-40")).toBe(true);
    p.keys("Home");
    s = await p.waitFor((x) => x.includes("› run both") && has(x, "alpha-1"));
    expect(s).toContain("bash printf");
    p.keys("q");
    s = await p.waitFor((x) => !x.includes("transcript ·") && x.includes("mode ask"));
    // The chat is back as it was: its scrollback holds what it held, nothing of the view.
    expect(p.all()).toBe(before);
    await quit(p);
  });
});
