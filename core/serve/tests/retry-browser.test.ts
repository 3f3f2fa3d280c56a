// A model attempt that streams part of an answer and then stalls: the web
// UI shows the waiting notice, then drops the attempt's text when the engine
// sends attempt_discarded, and keeps only the retried answer.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { cleanup, startServe, tempDir, writeSecret, type ServeProc } from "./helpers.ts";

setDefaultTimeout(120_000);

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "retry-token-0123456789abcdefghijkl";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skip: ${CHROMIUM} not found; the browser check needs Debian's chromium package`);

const FRAGMENT = "This long answer will stall in the middle";
const GOOD = "Complete answer after the stall.";

describe("a discarded attempt in the web UI", () => {
  let llm: ScriptedServer;
  let dir: string;
  let s: ServeProc;

  beforeAll(async () => {
    llm = await startScriptedOpenAI([{ text: `${FRAGMENT} and never finish.`, chunkSize: 7, stallAfter: 7 }, { text: GOOD }]);
    dir = tempDir("retry-ui");
    const workspace = join(dir, "ws");
    mkdirSync(workspace, { recursive: true });
    const home = join(dir, "home");
    mkdirSync(home, { mode: 0o700 });
    writeFileSync(
      join(home, "config.toml"),
      `default_model = "scripted"\n\n[[providers]]\nname = "scripted"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "m"\napi_key_env = "SCRIPTED_API_KEY"\nidle_timeout_seconds = 2\n`,
    );
    writeFileSync(join(home, ".env"), "SCRIPTED_API_KEY=sk-scripted\n", { mode: 0o600 });
    s = await startServe(["--addr", "127.0.0.1:0", "--auth", "token", "--token-file", writeSecret(dir, "token", TOKEN), "--workspace", workspace], { home });
  });
  afterAll(async () => {
    if (s && s.proc.exitCode === null) await s.stop();
    await llm?.close();
    cleanup(dir);
  });

  test.skipIf(!haveChromium)("the stalled attempt's text is shown, then removed; only the retried answer stays", async () => {
    const { chromium } = await import("playwright-core");
    const udd = tempDir("retry-udd");
    const ctx = await chromium.launchPersistentContext(udd, { executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
    try {
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      await page.goto(`${s.base}/#token=${TOKEN}`);
      await page.waitForSelector("#prompt");
      await page.fill("#prompt", "tell me");
      await page.press("#prompt", "Enter");
      // The first attempt's text streams in, then the stream goes silent.
      await page.waitForSelector(`.msg.assistant >> text=${FRAGMENT.slice(0, 20)}`);
      await page.waitForSelector(".system.warn >> text=Waiting for the model");
      await page.waitForSelector(`.msg.assistant >> text=${GOOD}`);
      const answers = await page.locator(".msg.assistant").allTextContents();
      expect(answers.join("\n")).not.toContain(FRAGMENT.slice(0, 20));
      expect(answers.filter((t) => t.includes(GOOD))).toHaveLength(1);
      expect(await page.locator(".system.warn", { hasText: "Provider retry 1" }).count()).toBe(1);
    } finally {
      await ctx.close();
      cleanup(udd);
    }
  });
});
