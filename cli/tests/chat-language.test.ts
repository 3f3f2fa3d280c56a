// The interface language in the compiled binary's chat (tmux, 80 columns):
// `/language zh` turns the status line and the / menu Chinese at once and
// saves the setting; with $REASONIX_LANG=zh the chat starts in Chinese and its
// approval prompt is Chinese; `/reasoning-language zh` reaches the model at the
// tail of the next message only. Nothing overflows: tmux's -J capture joins only
// the rows the terminal itself wrapped, so a line wider than the pane would
// come back longer than 80 columns.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { visibleWidth } from "@mariozechner/pi-tui";
import { chatFixture, closeMenu, compiledChat, menuOpen, quit, ready, type Pane } from "./chat-helpers.ts";

const { skip, binary } = compiledChat("chat language test");
const f = chatFixture();
const COLS = 80;

/** Lines of the screen with the terminal's own wraps joined, wider than the pane. */
function overflowing(p: Pane): string[] {
  const joined = spawnSync("tmux", ["-L", p.socket, "capture-pane", "-p", "-J", "-t", p.name], { encoding: "utf8" }).stdout ?? "";
  return joined.split("\n").filter((l) => visibleWidth(l) > COLS);
}

/** The compiled chat at 80 columns against a scripted model. */
async function chatAt80(steps: Parameters<typeof f.setup>[0], env?: Record<string, string>): Promise<Pane> {
  await f.setup(steps);
  return f.chat(["chat"], { bin: [binary()], cols: COLS, rows: 30, ...(env ? { env } : {}) });
}

/** Send a line and wait for what it shows. */
async function said(p: Pane, line: string, shows: string): Promise<string> {
  p.send(line);
  return p.waitFor(shows);
}

/** The status line: the screen's last non-empty row. */
const statusLine = (screen: string) => screen.split("\n").filter((l) => l.trim()).at(-1) ?? "";

describe.skipIf(skip)("compiled binary: interface language", () => {
  test("/language zh turns the status line and the / menu Chinese, fits 80 columns, and is saved in the user config", async () => {
    const p = await chatAt80([]);
    await ready(p);
    expect(statusLine(p.screen())).toContain("mode ask");
    p.send("/language zh");
    let s = await p.waitFor((x) => statusLine(x).includes("模式 ask"));
    expect(statusLine(s)).toContain("缓存 0%");
    expect(statusLine(s)).not.toContain("mode ask");
    expect(s).toContain("界面语言：zh");
    expect(overflowing(p)).toEqual([]);
    expect(readFileSync(join(f.ce.home, "config.toml"), "utf8")).toMatch(/^language = "zh"$/m);
    // The / menu's descriptions follow at once.
    p.type("/he");
    s = await p.waitFor((x) => menuOpen(x) && x.includes("命令与按键"));
    expect(s).not.toContain("Commands and keys");
    expect(overflowing(p)).toEqual([]);
    await closeMenu(p);
    // And back.
    p.keys("BSpace", "BSpace", "BSpace");
    p.send("/language en");
    s = await p.waitFor((x) => statusLine(x).includes("mode ask"));
    expect(readFileSync(join(f.ce.home, "config.toml"), "utf8")).toMatch(/^language = "en"$/m);
    await quit(p);
  });

  test("with $REASONIX_LANG=zh (language auto) the chat starts in Chinese; its approval prompt is Chinese and fits 80 columns", async () => {
    const p = await chatAt80([{ toolCalls: [{ name: "write_file", arguments: { path: "notes.txt", content: "一二三\n" } }] }, { text: "写好了" }], { REASONIX_LANG: "zh" });
    let s = await p.waitFor((x) => (x.match(/^─{20,}/gm) ?? []).length >= 2 && statusLine(x).includes("模式 ask"));
    expect(s).toContain("/help 查看命令");
    expect(overflowing(p)).toEqual([]);
    p.send("写一个文件");
    s = await p.waitFor("是，仅此一次");
    expect(s).toContain("允许 write_file notes.txt");
    expect(s).toContain("否，并告诉模型改做什么");
    s = await p.waitForCurrent("↑↓ 后按 Enter 作答");
    expect(overflowing(p)).toEqual([]);
    p.type("1");
    s = await p.waitFor("写好了");
    expect(readFileSync(join(f.ce.workspace, "notes.txt"), "utf8")).toBe("一二三\n");
    expect(overflowing(p)).toEqual([]);
    await quit(p);
  });

  test("/reasoning-language zh: the next request ends with the note, the system prompt and the earlier messages unchanged", async () => {
    const p = await chatAt80([{ text: "first answer" }, { text: "second answer" }]);
    await ready(p);
    await said(p, "hello one", "first answer");
    await said(p, "/reasoning-language zh", "reasoning language: zh");
    await said(p, "hello two", "second answer");
    const reqs = f.llm.chatRequests();
    expect(reqs).toHaveLength(2);
    expect(JSON.stringify(reqs[1]!.body.messages[0])).toBe(JSON.stringify(reqs[0]!.body.messages[0]));
    expect(JSON.stringify(reqs[1]!.body.tools)).toBe(JSON.stringify(reqs[0]!.body.tools));
    const prefix = JSON.stringify({ model: reqs[0]!.body.model, messages: reqs[0]!.body.messages }).slice(0, -2);
    expect(reqs[1]!.rawBody.startsWith(prefix)).toBe(true);
    const last = (i: number) => String(reqs[i]!.body.messages.at(-1).content);
    expect(last(0)).not.toContain("reasoning-language");
    expect(last(1)).toStartWith("hello two");
    expect(last(1)).toEndWith("<reasoning-language>Write your reasoning (thinking) in Simplified Chinese (简体中文).</reasoning-language>");
    expect(readFileSync(join(f.ce.home, "config.toml"), "utf8")).toMatch(/^\[agent\]\nreasoning_language = "zh"$/m);
    // The interface stays English: only the model is asked.
    expect(statusLine(p.screen())).toContain("mode ask");
    await quit(p);
  });
});
