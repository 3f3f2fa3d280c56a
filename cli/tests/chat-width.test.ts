// The chat's fast line width (cli/chat/width.ts) must agree with pi-tui's
// visibleWidth() on every line it answers, and leave the rest to it.
import { describe, expect, test } from "bun:test";
import { truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";
import { lineWidth, plainWidth } from "../chat/width.ts";
import { statusFields, type ChatState } from "../chat/session.ts";
import { setLanguage, t } from "../../core/protocol/i18n/index.ts";

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

  test("Chinese takes two columns a character: the Chinese status line, cut as the chat cuts it, never passes 80 columns", () => {
    expect(lineWidth("模式 ask")).toBe(8);
    expect(plainWidth("缓存")).toBeUndefined();
    const st = {
      model: "deepseek-reasoner-with-a-long-provider-name/deepseek-reasoner",
      mode: "yolo",
      contextPercent: () => 87,
      stats: { total: { inputTokens: 1_234_567, outputTokens: 89_012, cacheHitTokens: 0 }, lastInput: 120_000, cacheHitPercent: 93, cost: { total: 1.2345, currency: "CNY" } },
      sandboxState: () => t("status.sandboxOn"),
      queue: [],
      queuePaused: false,
    } as unknown as ChatState;
    setLanguage("zh");
    try {
      const busy = `${t("status.workingFor", { s: 128 })} · ${t("status.escCancels")}`;
      const full = statusFields(st, busy).join(" · ");
      expect(full).toContain("模式 yolo");
      expect(lineWidth(full)).toBeGreaterThan(80);
      // The chat draws it at the terminal's width less one column (cli/chat/app.ts), dimmed.
      for (let cols = 20; cols <= 120; cols++) {
        const line = truncateToWidth(`\x1b[2m${full}\x1b[22m`, cols - 1, "…");
        expect({ cols, fits: lineWidth(line) <= cols - 1 }).toEqual({ cols, fits: true });
      }
    } finally {
      setLanguage("en");
    }
  });
});
