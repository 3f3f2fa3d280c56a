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
  /** Run this compiled reasonix instead of the sources. */
  bin?: string;
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
  const s = await startServe(["--addr", "127.0.0.1:0", "--auth", "token", "--token-file", writeSecret(dir, "token", token), "--workspace", workspace], { home, ...(o.bin ? { bin: o.bin } : {}) });
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

/**
 * Do `action`, then wait until `fn(arg)` holds in the page. `fn` must be false
 * just before the action: a condition that already held would end the wait
 * before the action had any effect (core/testing/fresh-wait.ts), so that is an error at once.
 */
export async function causes<A>(page: Page, action: () => Promise<unknown>, fn: (arg: A) => boolean, arg?: A, opts: { timeout?: number } = {}): Promise<void> {
  // (playwright's own types for a page function with an argument do not accept a generic one.)
  const pageFn = fn as (arg: unknown) => boolean;
  if (await page.evaluate(pageFn, arg)) throw new Error(`this wait is already satisfied before the action: ${fn.toString().slice(0, 200)}`);
  await action();
  await page.waitForFunction(pageFn, arg, opts);
}

/** The session open in the page (from its address), or "". */
export const sessionOf = (page: Page): string => decodeURIComponent(/\/sessions\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1] ?? "");

/**
 * Wait until session `id` is open AND drawn: its row in the list is marked
 * current and the transcript is past "Opening the session…". The address
 * changes before the page redraws, so it alone would let a test read the
 * previous session's messages.
 */
export const sessionShown = (page: Page, id: string, opts: { timeout?: number } = {}) =>
  page.waitForFunction((sid) => !!document.querySelector(`#session-list [data-session="${CSS.escape(sid)}"] [aria-current="page"]`) && !(document.querySelector("#transcript")?.textContent ?? "").includes("Opening the session…"), id, opts);

/**
 * Click "+ New session" and wait for its empty draft (address "/", no
 * messages): the session itself is created by the first prompt (or a mode
 * choice), so nothing is on the server yet.
 */
export async function newSession(page: Page): Promise<void> {
  await page.click("#new-session");
  await page.waitForFunction(() => location.pathname === "/" && !document.querySelector("#transcript .msg") && !!document.querySelector("#empty"));
}

/**
 * The next successful response (from this call on) to `method` on a path
 * matching `path` (and, with `body`, a request body containing it): start it
 * before the action, await it after.
 */
export const nextResponse = (page: Page, method: string, path: RegExp, body?: string) =>
  page.waitForResponse((r) => r.request().method() === method && path.test(new URL(r.url()).pathname) && (body === undefined || (r.request().postData() ?? "").includes(body)) && r.ok());

/** Type a prompt and send it with Enter. */
export async function say(page: Page, text: string): Promise<void> {
  await page.fill("#prompt", text);
  await page.press("#prompt", "Enter");
}

/** Type a command; close the `/` menu if it opened (Enter would pick from it), then send. */
export async function command(page: Page, text: string): Promise<void> {
  // A /word with nothing after it opens the / menu once the catalog answers, and Enter would then pick an
  // entry; wait for the menu's answer to this very text (the composer counts them), close it if it opened.
  const settled = () => page.locator("#prompt").evaluate((el) => Number((el as HTMLElement).dataset.slashSettled ?? 0));
  const menuQuery = /^\/[\w.:-]*$/.test(text);
  const before = menuQuery ? await settled() : 0;
  await page.fill("#prompt", text);
  if (menuQuery) {
    await page.waitForFunction((n) => Number((document.querySelector("#prompt") as HTMLElement | null)?.dataset.slashSettled ?? 0) > n, before);
    if (await page.locator('ul[aria-label="Commands"] li').count()) await page.press("#prompt", "Escape");
  }
  await page.press("#prompt", "Enter");
}

/** Paste (on the prompt box) or drop (on the composer) files given as base64, through a DataTransfer as the browser builds it. */
export function transfer(page: Page, how: "paste" | "drop", files: { name: string; type: string; b64: string }[]) {
  return page.evaluate(
    ({ how, files }) => {
      const dt = new DataTransfer();
      for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
      if (how === "paste") document.querySelector("#prompt")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
      else {
        const form = document.querySelector("#composer")!;
        form.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
        form.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    },
    { how, files },
  );
}

export const pageErrors = (page: Page): string[] => (page as Page & { errors?: string[] }).errors ?? [];

export function shot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return page.screenshot({ path: join(ARTIFACTS, `ui-${name}.png`) });
}
