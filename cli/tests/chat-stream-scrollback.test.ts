// A long answer streams into the terminal's own scrollback as it comes: the
// compiled binary in a tmux pane at 80×24, a scripted model that pauses in
// the middle of a 100-item list, the pane's whole history read with
// capture-pane -S - (wrapped rows joined) mid-stream, after narrowing the
// pane mid-stream, and at the end. Every item must be there exactly once;
// the same for a 100-row table.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { chatFixture, compiledChat, quit, type Pane } from "./chat-helpers.ts";

const { skip, binary } = compiledChat("streaming scrollback test");

const f = chatFixture();

const id = (n: number) => String(n).padStart(3, "0");
/** Each item wraps into two rows at 80 columns; `<NNN>` opens it and `#NNN#` closes it. */
const item = (n: number) => `${n}. <${id(n)}> ${"lorem ipsum dolor sit amet ".repeat(3)}#${id(n)}#`;
const CHUNK = 16;

/** Screen and scrollback, rows the terminal wrapped joined again (capture-pane -J). */
const history = (p: Pane) => spawnSync("tmux", ["-L", p.socket, "capture-pane", "-p", "-J", "-S", "-", "-t", p.name], { encoding: "utf8" }).stdout;

/** Items 1..n each exactly once (both ends), and none after n. */
function expectItems(all: string, n: number, total = 100) {
  const count = (s: string) => all.split(s).length - 1;
  const wrong: string[] = [];
  for (let i = 1; i <= total; i++) {
    const want = i <= n ? 1 : 0;
    const got = [count(`<${id(i)}>`), count(`#${id(i)}#`)];
    if (got[0] !== want || got[1] !== want) wrong.push(`item ${i}: ${got.join("/")} (want ${want})`);
  }
  expect(wrong).toEqual([]);
}

describe.skipIf(skip)("compiled binary: a long streamed list goes to the scrollback as it comes", () => {
  test("mid-stream every finished item is in the scrollback once; narrowing the pane mid-stream repeats none", async () => {
    const text = `Here is the list:\n\n${Array.from({ length: 100 }, (_, i) => item(i + 1)).join("\n")}\n\nDone with the list.`;
    // Pause inside item 61: items 1..60 are complete lines.
    const at = text.indexOf(`<${id(61)}>`) + 8;
    let resume!: () => void;
    const resumed = new Promise<void>((r) => (resume = r));
    await f.setup([{ text, chunkSize: CHUNK, pauseAfter: 1 + Math.floor(at / CHUNK), resumeWhen: resumed }]);
    const p = f.chat([], { bin: [binary()], cols: 80, rows: 24, record: join(f.ce.home, "pane.bytes") });
    try {
      await p.waitFor("mode ask");
      p.send("list please");
      await p.waitFor(`#${id(60)}#`);
      expectItems(history(p), 60);

      p.resize(60, 24);
      // The live region is redrawn at the new width: its editor border is 59 columns now.
      await p.waitFor((s) => /(^|[^─])─{59}([^─]|$)/m.test(s), { written: true });
      expectItems(history(p), 60);

      resume();
      await p.waitFor("Done with the list.");
      expectItems(history(p), 100);
    } finally {
      resume();
    }
    await quit(p);
  });

  test("a long table: mid-stream its finished rows are in the scrollback once, and all 100 at the end", async () => {
    const row = (n: number) => `| ${n} | <${id(n)}> | cell text for row ${n} | #${id(n)}# |`;
    const text = `The table:\n\n| n | id | text | end |\n|---|---|---|---|\n${Array.from({ length: 100 }, (_, i) => row(i + 1)).join("\n")}\n\nDone with the table.`;
    const at = text.indexOf(`<${id(61)}>`) + 3;
    let resume!: () => void;
    const resumed = new Promise<void>((r) => (resume = r));
    await f.setup([{ text, chunkSize: CHUNK, pauseAfter: 1 + Math.floor(at / CHUNK), resumeWhen: resumed }]);
    const p = f.chat([], { bin: [binary()], cols: 80, rows: 24 });
    try {
      await p.waitFor("mode ask");
      p.send("table please");
      await p.waitFor(`#${id(60)}#`);
      expectItems(history(p), 60);
      resume();
      await p.waitFor("Done with the table.");
      expectItems(history(p), 100);
    } finally {
      resume();
    }
    await quit(p);
  });
});
