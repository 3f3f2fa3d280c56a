// The web UI's one-time trust prompt: a workspace whose reasonix.toml wants
// `auto` mode and an allow rule shows what, and approving it in the browser
// records exactly those digests and lets the next session use them.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { cleanup, repoRoot, tempDir, type ServeProc } from "./helpers.ts";
import { startTokenServe, writeScriptedServeHome } from "./token-serve.ts";

setDefaultTimeout(120_000);
const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "trust-token-0123456789abcdefghijkl";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skip: ${CHROMIUM} not found; the browser tests need Debian's chromium package`);
const LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

describe.skipIf(!haveChromium)("web UI trust prompt (headless chromium)", () => {
  let llm: ScriptedServer;
  let s: ServeProc;
  let dir: string;
  let home: string;
  let workspace: string;
  const contexts: import("playwright-core").BrowserContext[] = [];

  beforeAll(async () => {
    dir = tempDir("trust-browser");
    workspace = join(dir, "ws");
    mkdirSync(workspace);
    llm = await startScriptedOpenAI([{ toolCalls: [{ name: "write_file", arguments: { path: "made.txt", content: "auto mode\n" } }] }, { text: "Wrote it without asking." }]);
    home = writeScriptedServeHome(dir, llm.url);
    writeFileSync(join(workspace, "reasonix.toml"), '[permissions]\nmode = "auto"\n');
    s = await startTokenServe(dir, home, workspace, TOKEN);
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    if (s && s.proc.exitCode === null) await s.stop();
    await llm?.close();
    cleanup(dir);
  });

  test("the prompt lists the loosening setting; a stale approval is refused; approving applies it to new sessions", async () => {
    const { chromium } = await import("playwright-core");
    const udd = tempDir("udd");
    const ctx = await chromium.launchPersistentContext(udd, { executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS, viewport: { width: 1280, height: 820 } });
    contexts.push(ctx);
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    await page.goto(`${s.base}/#token=${TOKEN}`);
    await page.waitForSelector("#trust:not([hidden])");
    expect(await page.locator("#trust").textContent()).toContain('permissions.mode = "auto"');
    mkdirSync(join(repoRoot, "test-artifacts"), { recursive: true });
    await page.screenshot({ path: join(repoRoot, "test-artifacts", "serve-trust-prompt.png") });

    // The file changes after it was shown: approving what was shown must fail.
    const original = readFileSync(join(workspace, "reasonix.toml"), "utf8");
    writeFileSync(join(workspace, "reasonix.toml"), '[permissions]\nmode = "yolo"\n');
    await page.click("#trust-approve");
    await page.waitForSelector("#trust .error:text('changed since')");
    expect(readFileSync(join(home, "config.toml"), "utf8")).not.toContain("trust.workspaces");

    writeFileSync(join(workspace, "reasonix.toml"), original);
    await page.reload();
    await page.waitForSelector("#trust:not([hidden])");
    await page.click("#trust-approve");
    await page.waitForSelector("#trust", { state: "hidden" });
    expect(readFileSync(join(home, "config.toml"), "utf8")).toContain("[trust.workspaces.");

    // Approved: auto mode writes without an approval card.
    await page.fill("#prompt", "write made.txt");
    await page.press("#prompt", "Enter");
    await page.waitForSelector(".msg.assistant >> text=Wrote it without asking.");
    expect(readFileSync(join(workspace, "made.txt"), "utf8")).toBe("auto mode\n");
    expect(await page.getByRole("button", { name: "Allow once" }).count()).toBe(0);

    // Asked once: a reload of a trusted workspace shows no prompt.
    await page.reload();
    await page.waitForSelector("#prompt");
    await page.waitForTimeout(300);
    expect(await page.locator("#trust").isHidden()).toBe(true);
    cleanup(udd);
  });
});
