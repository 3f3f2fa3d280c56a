// The web UI's `/` menu and /help say what the server's dispatcher takes for
// /mode on the open session (core/protocol modesOn → modesOffered): yolo only
// for a session already running in it (the chat's session shared with the
// browser, as `/web` does, after Ctrl-Y), never for one that is not — there
// the dispatcher refuses `/mode yolo`, so the hint must not offer it.
// A real in-process server and engine, headless Chromium via playwright-core.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { createEngine } from "../../engine/index.ts";
import type { Engine } from "../../engine/types.ts";
import { SessionHost } from "../../host/session-host.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { engineFactoryFromConfig } from "../engine.ts";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, tempDir } from "./helpers.ts";
import { CHROMIUM, command, haveChromium, LAUNCH_ARGS, pageErrors } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED the web UI's /mode hint: /usr/bin/chromium not found (Debian: chromium)");

const TOKEN = "mode-hint-token-0123456789abcdefghij";
const MENU = 'ul[aria-label="Commands"] li';

describe.skipIf(!haveChromium)("web UI: /mode's hint names the modes the dispatcher offers this session", () => {
  let dir: string;
  let llm: ScriptedServer;
  let engine: Engine;
  let server: RunningServer;
  let host: SessionHost;
  let ctx: BrowserContext;
  beforeAll(async () => {
    dir = tempDir("mode-hint");
    const home = join(dir, "home");
    const workspace = join(dir, "ws");
    mkdirSync(home, { recursive: true, mode: 0o700 });
    mkdirSync(workspace);
    llm = await startScriptedOpenAI([]);
    writeFileSync(join(home, "config.toml"), `default_model = "s"\n\n[[providers]]\nname = "s"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "m"\napi_key_env = "S_KEY"\n\n[permissions]\nmode = "ask"\n`);
    writeFileSync(join(home, ".env"), "S_KEY=sk-s\n", { mode: 0o600 });
    server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "token", token: TOKEN }, workspace, home, version: "test", defaultModel: "s", engineFactory: await engineFactoryFromConfig(home) });
    // Another front end's session in yolo (the chat's, after Ctrl-Y), served through its own host as `/web` does.
    engine = createEngine({ workspace, home });
    host = new SessionHost(engine, await engine.createSession(), { mode: "yolo" });
    server.sessions.share(host);
    await server.sessions.get(host.session.id);
    const { chromium } = await import("playwright-core");
    ctx = await chromium.launchPersistentContext(join(dir, "udd"), { executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
  });
  afterAll(async () => {
    await ctx?.close().catch(() => {});
    await server?.stop();
    host?.session.close();
    await engine?.close();
    await llm?.close();
    if (dir) cleanup(dir);
  });

  /** The `/` menu's rows for "/mo", read once the menu has answered this very text; the menu is closed again. */
  async function modeRows(page: Page): Promise<string[]> {
    const settled = await page.locator("#prompt").evaluate((el) => Number((el as HTMLElement).dataset.slashSettled ?? 0));
    // One input event for the whole text: one answer to wait for.
    await page.fill("#prompt", "/mo");
    await page.waitForFunction((n) => Number((document.querySelector("#prompt") as HTMLElement | null)?.dataset.slashSettled ?? 0) > n, settled);
    const rows = await page.locator(MENU).allTextContents();
    await page.keyboard.press("Escape");
    await page.fill("#prompt", "");
    return rows.filter((r) => r.startsWith("/mode "));
  }

  test("a session in yolo is offered yolo in the hint; once switched to ask it is not, and the dispatcher agrees", async () => {
    const page = await ctx.newPage();
    await page.goto(`${server.url.replace(/\/$/, "")}/sessions/${host.session.id}#token=${TOKEN}`);
    await page.waitForSelector("#conn.websocket, #conn.sse");
    // The session's mode arrives with the session.
    await page.waitForFunction(() => (document.querySelector("#mode") as HTMLSelectElement | null)?.value === "yolo");
    expect(await modeRows(page)).toEqual(["/mode [ask|auto|plan|read-only|yolo] Permission mode for the rest of the session"]);

    // The dispatcher's answer is shown once the page has taken the new mode.
    await command(page, "/mode ask");
    await page.getByText("permission mode ask from here on").waitFor();
    expect(host.mode).toBe("ask");
    expect(await page.locator("#mode").inputValue()).toBe("ask");
    expect(await modeRows(page)).toEqual(["/mode [ask|auto|plan|read-only] Permission mode for the rest of the session"]);
    await command(page, "/mode yolo");
    await page.getByText('unknown mode "yolo" (one of ask, auto, plan, read-only)').waitFor();
    await command(page, "/help");
    await page.getByText("/mode [ask|auto|plan|read-only] — Permission mode").waitFor();
    expect(pageErrors(page)).toEqual([]);
    await page.close();
  });

  test("a new session (mode as configured) is not offered yolo", async () => {
    const page = await ctx.newPage();
    await page.goto(`${server.url}#token=${TOKEN}`);
    await page.waitForSelector("#conn.websocket, #conn.sse");
    await page.waitForSelector("#empty");
    expect(await modeRows(page)).toEqual(["/mode [ask|auto|plan|read-only] Permission mode for the rest of the session"]);
    await page.close();
  });
});
