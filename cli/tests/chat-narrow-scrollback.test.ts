// A live area the terminal re-wraps taller than the screen: the compiled
// binary in a tmux pane at 80×24 with a tall approval card (a long command)
// or a long unfinished paragraph streaming, then the pane narrowed to 40
// columns, where every full-width live row becomes two and tmux pushes the
// top of the old live area into its history (or made 4 rows shorter, which
// pushes the card's first rows there too). The pane's whole history, read
// with capture-pane -S - (wrapped rows joined), must hold no row twice and
// lose none.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { answer, chatFixture, compiledChat, quit, ready, type Pane } from "./chat-helpers.ts";

const { skip, binary } = compiledChat("narrowing scrollback test");

const f = chatFixture();

const id = (n: number) => String(n).padStart(2, "0");
/** Screen and scrollback, rows the terminal wrapped joined again (capture-pane -J). */
const history = (p: Pane) => spawnSync("tmux", ["-L", p.socket, "capture-pane", "-p", "-J", "-S", "-", "-t", p.name], { encoding: "utf8" }).stdout;
const count = (all: string, s: string) => all.split(s).length - 1;
/** The live area was redrawn at 40 columns: its editor border is 39 columns. */
const narrowed = (s: string) => /(^|[^─])─{39}([^─]|$)/m.test(s);

/** 30 command lines of about 70 columns: one row each at 80 columns, two at 40. */
const commandLines = Array.from({ length: 30 }, (_, i) => `echo 'C${id(i + 1)} ${"lorem ipsum dolor sit amet ".repeat(2)}end'`);
/** No command line, nor the card's head or the prompt, more than once in the pane's history. */
const twice = (all: string) => [...commandLines.map((_, i) => `C${id(i + 1)}`), "Allow bash", "run it"].filter((m) => count(all, m) > 1);

/** The chat at 80×24 with the approval for that command on screen: the card fills the screen. */
async function tallCard(): Promise<Pane> {
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  await f.setup([{ toolCalls: [{ name: "bash", arguments: { command: commandLines.join("\n") } }], until: held }, { text: "ran them all" }]);
  const p = f.chat(["chat"], { bin: [binary()], cols: 80, rows: 24, record: join(f.ce.home, "pane.bytes") });
  try {
    await ready(p);
    p.send("run it");
    await p.waitFor("› run it", { all: true });
  } finally {
    release();
  }
  const s = await p.waitFor("Allow bash");
  expect(s).toContain("C01");
  // The body is longer than the rows left for it: the card takes the whole screen.
  expect(s).toContain("PgDn for more");
  return p;
}

describe.skipIf(skip)("compiled binary: narrowing the terminal under a tall live area repeats no row in the scrollback", () => {
  test("a tall approval card (a long command): its rows are in the scrollback at most once after narrowing", async () => {
    const p = await tallCard();
    p.resize(40, 24);
    await p.waitFor(narrowed, { written: true });
    const all = history(p);
    expect(twice(all)).toEqual([]);
    // The card is still there to answer.
    expect(count(all, "Allow bash")).toBe(1);
    await answer(p, 1);
    await p.waitFor("ran them all");
    const after = history(p);
    expect(count(after, "Allow bash")).toBe(1);
    expect(count(after, "› run it")).toBe(1);
    await quit(p);
  });

  test("a tall approval card and a shorter window: the rows the terminal moved to the scrollback are not drawn again", async () => {
    const p = await tallCard();
    // 4 rows fewer: tmux moves the card's first rows into its history (the cursor is on the last row).
    p.resize(80, 20);
    // The redraw after a resize writes the card's rows below what went there (an arming redraw writes only the hint).
    await p.waitFor("5. No, and tell the model", { written: true });
    const all = history(p);
    expect(twice(all)).toEqual([]);
    expect(count(all, "Allow bash")).toBe(1);
    await answer(p, 1);
    await p.waitFor("ran them all");
    await quit(p);
  });

  test("a long unfinished paragraph streaming: after narrowing mid-stream each of its words is in the scrollback once", async () => {
    // One line of 12 sentences (about 13 rows at 80 columns), paused before its end: all of it is live.
    const sentence = (n: number) => `<W${id(n)}> lorem ipsum dolor sit amet consectetur adipiscing elit #W${id(n)}#`;
    const para = Array.from({ length: 12 }, (_, i) => sentence(i + 1)).join(" ");
    const text = `First block.\n\n${para} and that is all.\n\nDone with the paragraph.`;
    const CHUNK = 16;
    const at = text.indexOf("and that is all");
    let resume!: () => void;
    const resumed = new Promise<void>((r) => (resume = r));
    await f.setup([{ text, chunkSize: CHUNK, pauseAfter: 1 + Math.floor(at / CHUNK), resumeWhen: resumed }]);
    const p = f.chat([], { bin: [binary()], cols: 80, rows: 24, record: join(f.ce.home, "pane.bytes") });
    try {
      await ready(p);
      p.send("a paragraph please");
      await p.waitFor(`#W10#`);

      p.resize(40, 24);
      await p.waitFor(narrowed, { written: true });
      const mid = history(p);
      const twice = Array.from({ length: 10 }, (_, i) => `<W${id(i + 1)}>`).filter((m) => count(mid, m) > 1);
      expect(twice).toEqual([]);

      resume();
      await p.waitFor("Done with the paragraph.");
      const all = history(p);
      const wrong: string[] = [];
      for (let i = 1; i <= 12; i++) for (const m of [`<W${id(i)}>`, `#W${id(i)}#`]) if (count(all, m) !== 1) wrong.push(`${m}: ${count(all, m)}`);
      expect(wrong).toEqual([]);
      expect(count(all, "First block.")).toBe(1);
    } finally {
      resume();
    }
    await quit(p);
  });
});
