// A model attempt that streams part of an answer and then stalls: the web
// UI shows the waiting notice, then drops the attempt's text when the engine
// sends attempt_discarded, and keeps only the retried answer.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { cleanup, tempDir, type ServeProc } from "./helpers.ts";
import { startTokenServe, withChromiumPage, writeScriptedServeHome } from "./token-serve.ts";

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
    const home = writeScriptedServeHome(dir, llm.url, "idle_timeout_seconds = 2\n");
    s = await startTokenServe(dir, home, workspace, TOKEN);
  });
  afterAll(async () => {
    if (s && s.proc.exitCode === null) await s.stop();
    await llm?.close();
    cleanup(dir);
  });

  test.skipIf(!haveChromium)("the stalled attempt's text is shown, then removed; only the retried answer stays", async () => {
    await withChromiumPage(CHROMIUM, `${s.base}/#token=${TOKEN}`, async (page) => {
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
    });
  });
});
