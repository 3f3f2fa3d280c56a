// Shared set-up for the web UI v2 browser tests: a real `reasonix serve`
// child process driven by the scripted model, and headless Debian chromium
// through playwright-core, one fresh profile per browser context.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { cleanup, repoRoot, startServe, tempDir, writeSecret, type ServeProc } from "./helpers.ts";

export const CHROMIUM = "/usr/bin/chromium";
export const haveChromium = existsSync(CHROMIUM);
export const ARTIFACTS = join(repoRoot, "test-artifacts");
export const LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export interface UiRig {
  llm: ScriptedServer;
  s: ServeProc;
  dir: string;
  home: string;
  workspace: string;
  token: string;
  /** A page signed in (token link), on `path` (default /). */
  open(path?: string, o?: { viewport?: { width: number; height: number }; dark?: boolean; bypassCSP?: boolean; noWebSocket?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

export interface RigOptions {
  /** Extra [[providers]] entries (TOML), e.g. one without a key. */
  extraProviders?: string;
  /** Extra lines for .env. */
  extraEnv?: string;
}

export async function startRig(o: RigOptions = {}): Promise<UiRig> {
  const dir = tempDir("ui");
  const home = join(dir, "home");
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const llm = await startScriptedOpenAI([]);
  writeFileSync(
    join(home, "config.toml"),
    `default_model = "scripted"\n\n[[providers]]\nname = "scripted"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "scripted-model"\napi_key_env = "SCRIPTED_API_KEY"\ncontext_window = 64000\nprices = { input = 2.5, output = 10, currency = "USD" }\n${(o.extraProviders ?? "").replaceAll("{{LLM}}", llm.url)}\n[permissions]\nmode = "ask"\n`,
  );
  writeFileSync(join(home, ".env"), `SCRIPTED_API_KEY=sk-scripted\n${o.extraEnv ?? ""}`, { mode: 0o600 });
  const token = "ui-token-0123456789abcdefghijklmnop";
  const s = await startServe(["--addr", "127.0.0.1:0", "--auth", "token", "--token-file", writeSecret(dir, "token", token), "--workspace", workspace], { home });
  const contexts: BrowserContext[] = [];
  const profiles: string[] = [];
  return {
    llm,
    s,
    dir,
    home,
    workspace,
    token,
    async open(path = "/", opts = {}) {
      const { chromium } = await import("playwright-core");
      const udd = tempDir("udd");
      profiles.push(udd);
      const ctx = await chromium.launchPersistentContext(udd, {
        executablePath: CHROMIUM,
        headless: true,
        args: LAUNCH_ARGS,
        viewport: opts.viewport ?? { width: 1440, height: 900 },
        colorScheme: opts.dark ? "dark" : "light",
        bypassCSP: opts.bypassCSP ?? false,
      });
      contexts.push(ctx);
      if (opts.noWebSocket) await ctx.addInitScript(() => void delete (window as { WebSocket?: unknown }).WebSocket);
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      (page as Page & { errors?: string[] }).errors = errors;
      await page.goto(`${s.base}${path}#token=${token}`);
      await page.waitForSelector("#prompt");
      await page.waitForSelector("#conn.websocket, #conn.sse");
      return page;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      if (s.proc.exitCode === null) await s.stop();
      await llm.close();
      cleanup(dir);
      for (const p of profiles) cleanup(p);
    },
  };
}

/** Type a prompt and send it with Enter. */
export async function say(page: Page, text: string): Promise<void> {
  await page.fill("#prompt", text);
  await page.press("#prompt", "Enter");
}

/** Type a command; close the `/` menu if it opened (Enter would pick from it), then send. */
export async function command(page: Page, text: string): Promise<void> {
  await page.fill("#prompt", text);
  const menu = page.locator('ul[aria-label="Commands"] li');
  await menu.first().waitFor({ timeout: 5000 }).catch(() => {});
  if (await menu.count()) await page.press("#prompt", "Escape");
  await page.press("#prompt", "Enter");
}

export const pageErrors = (page: Page): string[] => (page as Page & { errors?: string[] }).errors ?? [];

export function shot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return page.screenshot({ path: join(ARTIFACTS, `ui-${name}.png`) });
}
