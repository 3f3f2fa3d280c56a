// NO_COLOR=1 (https://no-color.org) means no colour, nothing more: the chat
// keeps its full-screen interface (the `/` menu, rendered markdown, the
// status line, approval cards) and drops every colour escape. Text
// attributes stay where the interface needs them (bold headings, dim notes,
// the inverse-video cursor): SGR 0-9 and their resets 22-29 are allowed, and
// so are 39/49 (back to the default colour: tmux's `capture-pane -e` writes
// them after every attribute). Any colour (30-38, 40-48, 90-97, 100-107, 58)
// is not. Line mode is for TERM=dumb and non-terminals only (chat.test.ts).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { answer, chatFixture, closeMenu, hasTmux, quit, ready } from "./chat-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED NO_COLOR chat tests: tmux is not installed (apt-get install tmux)");

const f = chatFixture();

/** Every SGR sequence in `bytes` that sets a colour. */
function colourCodes(bytes: string): string[] {
  const found: string[] = [];
  for (const m of bytes.matchAll(/\x1b\[([0-9;:]*)m/g)) {
    const ps = m[1]!.split(/[;:]/).filter((x) => x !== "").map(Number);
    if (ps.some((n) => (n >= 30 && n <= 48 && n !== 39) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) || n === 58)) found.push(m[0]!.slice(1));
  }
  return found;
}

const MD = "### Steps\n\n- first item\n- second item\n\nUse `npm test` then:\n\n```ts\nconst x = \"s\"; // note\n```\n";

describe.skipIf(skip)("reasonix chat with NO_COLOR=1", () => {
  test("full interface (menu, markdown, status line, approval card), no colour escape on screen or in what it wrote", async () => {
    await f.setup([{ text: MD }, { toolCalls: [{ name: "write_file", arguments: { path: "nc.txt", content: "plain\n" } }] }, { text: "wrote nc" }]);
    const rec = join(f.ce.workspace, "..", "nocolor-full.bytes");
    const p = f.chat(["chat"], { env: { NO_COLOR: "1" }, record: rec });
    // The editor's borders and the status line: the full-screen chat, not line mode.
    const first = await ready(p);
    expect(first).not.toContain("line mode");
    p.type("/mo");
    const menu = await p.waitFor("Pick the model");
    expect(menu).toContain("Permission mode for the rest");
    p.keys("C-u");
    await closeMenu(p);
    p.send("show the steps");
    const s = await p.waitFor("second item");
    // Rendered markdown: no hashes, no fences.
    expect(s).toContain("Steps");
    expect(s).not.toContain("### Steps");
    expect(s).not.toContain("```");
    p.send("write nc.txt");
    // The card's diff reads without colour: its lines carry + and -.
    await p.waitFor("+ plain");
    await answer(p, 1);
    await p.waitFor("wrote nc");
    expect(readFileSync(join(f.ce.workspace, "nc.txt"), "utf8")).toBe("plain\n");
    const screen = p.raw();
    await quit(p);
    expect(colourCodes(screen)).toEqual([]);
    expect(colourCodes(readFileSync(rec, "latin1"))).toEqual([]);
  }, 60_000);

  test("without NO_COLOR the same chat is coloured (the check above can see colour)", async () => {
    await f.setup([{ text: MD }]);
    const rec = join(f.ce.workspace, "..", "colour.bytes");
    const p = f.chat(["chat"], { record: rec });
    await ready(p);
    p.send("show the steps");
    await p.waitFor("second item");
    await quit(p);
    expect(colourCodes(readFileSync(rec, "latin1")).length).toBeGreaterThan(0);
  }, 60_000);
});
