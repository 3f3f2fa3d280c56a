// The web UI in Chinese (real `reasonix serve`, scripted model, headless
// chromium): with `language = "zh"` in the user config the status endpoint
// carries it, and the header, composer, sessions list, side panel, / menu,
// approval card and settings panel headings show their Chinese text; English
// stays the default.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { haveChromium, pageErrors, say, shot, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI language tests: /usr/bin/chromium is not installed");

const rigs: UiRig[] = [];
/** A real serve with the scripted model and the user config's `language` set (or not): closed after the test. */
async function serveWith(language?: string): Promise<UiRig> {
  const rig = await startRig();
  rigs.push(rig);
  const config = join(rig.home, "config.toml");
  if (language) writeFileSync(config, `language = "${language}"\n${readFileSync(config, "utf8")}`);
  return rig;
}
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.close();
});

describe.skipIf(!haveChromium)("web UI language", () => {

  test("language = \"zh\": header, composer, / menu, approval card and settings headings are Chinese", async () => {
    const rig = await serveWith("zh");
    rig.llm.push({ toolCalls: [{ name: "write_file", arguments: { path: "u.txt", content: "u\n" } }] }, { text: "写好了" });
    const page = await rig.open();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("zh-CN");
    expect(await page.getAttribute("#prompt", "placeholder")).toBe("给 Reasonix 发消息…（@ 引用文件）");
    expect(await page.textContent("#send")).toBe("发送");
    expect(await page.textContent("#conn")).toBe("在线");
    expect(await page.getAttribute("#settings-open", "aria-label")).toBe("设置");
    expect(await page.locator("#mode option").allTextContents()).toContain("改动前询问");
    expect(await page.textContent("#new-session")).toBe("+ 新会话");
    expect(await page.textContent("#todo-h")).toBe("待办");
    expect(await page.textContent("#changes-h")).toBe("改动的文件");
    // The / menu: the built-in commands' descriptions.
    await page.fill("#prompt", "/he");
    await page.locator('ul[aria-label="Commands"] li', { hasText: "命令与按键" }).waitFor();
    await page.press("#prompt", "Escape");
    await page.fill("#prompt", "");
    // The approval card.
    await say(page, "写一个文件");
    await page.locator(".msg.user .who", { hasText: "你" }).waitFor();
    const card = page.locator(".tool.status-ask");
    await card.waitFor();
    expect(await card.locator(".tool-state").textContent()).toBe("需要审批");
    for (const name of ["允许一次", "本会话允许", "拒绝"]) expect(await card.getByRole("button", { name }).count()).toBe(1);
    await shot(page, "language-zh-approval");
    await card.getByRole("button", { name: "允许一次" }).click();
    await page.locator(".tool.status-ok .tool-state", { hasText: "完成" }).waitFor();
    await page.locator(".msg", { hasText: "写好了" }).waitFor();
    expect(readFileSync(join(rig.workspace, "u.txt"), "utf8")).toBe("u\n");
    await page.locator("#usage", { hasText: "缓存命中" }).waitFor();
    // The settings panel's headings.
    await page.click("#settings-open");
    await page.locator("#set-providers-h").waitFor();
    expect(await page.textContent("#settings-h")).toBe("设置");
    expect(await page.textContent("#set-providers-h")).toBe("模型提供方");
    expect(await page.textContent("#set-rules-h")).toBe("权限规则");
    expect(await page.textContent("#set-mcp-h")).toBe("MCP 服务器");
    expect(await page.textContent("#set-theme-h")).toBe("主题");
    expect(await page.textContent("#settings-close")).toBe("关闭");
    await shot(page, "language-zh-settings");
    expect(pageErrors(page)).toEqual([]);
  });

  test("without a language setting (and an English environment) the web UI is English and the status says en", async () => {
    const rig = await serveWith();
    const page = await rig.open();
    expect(await page.evaluate(() => fetch("/api/status").then((r) => r.json()).then((s) => s.language))).toBe("en");
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("en");
    expect(await page.getAttribute("#prompt", "placeholder")).toBe("Message Reasonix… (@ to mention a file)");
    expect(await page.textContent("#send")).toBe("Send");
    expect(pageErrors(page)).toEqual([]);
  });
});
