// A real `reasonix serve` child with token auth over a scripted model's home,
// and one headless chromium page on it, for the serve tests that set up their
// own workspace.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { cleanup, startServe, tempDir, writeSecret, type ServeProc } from "./helpers.ts";

/**
 * dir/home: config.toml whose default model "scripted" (model "m") is the scripted
 * server at `llmUrl`, its key SCRIPTED_API_KEY in a 0600 .env; `providerToml`
 * adds lines to that entry. Returns the home.
 */
export function writeScriptedServeHome(dir: string, llmUrl: string, providerToml = ""): string {
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(join(home, "config.toml"), `default_model = "scripted"\n\n[[providers]]\nname = "scripted"\nkind = "openai"\nbase_url = "${llmUrl}"\nmodel = "m"\napi_key_env = "SCRIPTED_API_KEY"\n${providerToml}`);
  writeFileSync(join(home, ".env"), "SCRIPTED_API_KEY=sk-scripted\n", { mode: 0o600 });
  return home;
}

/** `reasonix serve` on a loopback port over `workspace`, token auth (the token in a 0600 file under dir). */
export function startTokenServe(dir: string, home: string, workspace: string, token: string): Promise<ServeProc> {
  return startServe(["--addr", "127.0.0.1:0", "--auth", "token", "--token-file", writeSecret(dir, "token", token), "--workspace", workspace], { home });
}

/** Headless chromium with a fresh profile, one page on `url`; the browser is closed and the profile removed after `fn`. */
export async function withChromiumPage(chromiumPath: string, url: string, fn: (page: Page) => Promise<void>): Promise<void> {
  const { chromium } = await import("playwright-core");
  const udd = tempDir("udd");
  const ctx = await chromium.launchPersistentContext(udd, { executablePath: chromiumPath, headless: true, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    await page.goto(url);
    await fn(page);
  } finally {
    await ctx.close();
    cleanup(udd);
  }
}
