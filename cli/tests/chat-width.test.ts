// The chat's fast line width (cli/chat/width.ts) must agree with pi-tui's
// visibleWidth() on every line it answers, and leave the rest to it.
import { describe, expect, test } from "bun:test";
import { visibleWidth } from "@mariozechner/pi-tui";
import { lineWidth, plainWidth } from "../chat/width.ts";

const gray = (s: string) => `\x1b[90m${s}\x1b[39m`;
const MARKER = "\x1b_pi:c\x07"; // pi-tui's cursor marker (APC)

describe("chat line width", () => {
  test("each one-column symbol counts as visibleWidth() counts it", () => {
    const symbols = [0xb7, 0x2026, 0x2039, 0x203a];
    for (let c = 0x2500; c <= 0x257f; c++) symbols.push(c);
    for (const c of symbols) {
      const s = `a${String.fromCharCode(c)}b`;
      expect({ c, w: plainWidth(s) }).toEqual({ c, w: visibleWidth(s) });
    }
  });

  test("the first frame's lines and the status line are counted here, exactly", () => {
    const lines = [
      gray("─".repeat(119)),
      `${MARKER}\x1b[7m \x1b[0m${" ".repeat(118)}`,
      "\x1b[2mstarting…\x1b[22m",
      "\x1b[2mbench · mode ask · ctx 1% · 918 tok · $0.00 · cache 0%\x1b[22m",
      "\x1b[1m\x1b[36m## Step 1\x1b[39m\x1b[22m",
      "queued › fix the ‹build›",
      "",
    ];
    for (const l of lines) {
      expect(plainWidth(l)).toBeDefined();
      expect(plainWidth(l)).toBe(visibleWidth(l));
    }
  });

  test("anything else goes to visibleWidth()", () => {
    const others = ["日本語", "é", "e\u0301", "👍 ok", "tab\there", "\x1b]8;;http://x\x07link\x1b]8;;\x07", "\x1b[31", "\x1b_no end", "\x1b_a\x1b\\b\x07", "\u00ad", "\x1bc"];
    for (const s of others) {
      expect(plainWidth(s)).toBeUndefined();
      expect(lineWidth(s)).toBe(visibleWidth(s));
    }
  });
});
