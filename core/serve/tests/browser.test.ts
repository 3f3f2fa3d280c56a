import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { cleanup, repoRoot, startServe, tempDir, writeSecret, type ServeProc } from "./helpers.ts";

setDefaultTimeout(120_000);

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "browser-token-0123456789abcdefghij";
const ARTIFACTS = join(repoRoot, "test-artifacts");
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`SKIPPED web UI browser tests: ${CHROMIUM} not found (Debian's chromium package; .ci/run installs it)`);

const LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Write a user config that points the engine at the scripted model server. */
function writeConfig(home: string, llm: ScriptedServer, withKey = true): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home, "config.toml"),
    `default_model = "scripted"\n\n[[providers]]\nname = "scripted"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "scripted-model"\napi_key_env = "SCRIPTED_API_KEY"\n\n[permissions]\nmode = "ask"\n`,
  );
  if (withKey) writeFileSync(join(home, ".env"), "SCRIPTED_API_KEY=sk-scripted\n", { mode: 0o600 });
}

describe.skipIf(!haveChromium)("web UI in headless chromium", () => {
  let llm: ScriptedServer;
  let s: ServeProc;
  let dir: string;
  let workspace: string;
  /** A fresh browser profile (its own user-data-dir) per test. */
  const launch = async (viewport = { width: 1280, height: 820 }) => {
    const { chromium } = await import("playwright-core");
    const udd = tempDir("udd");
    profiles.push(udd);
    const ctx = await chromium.launchPersistentContext(udd, { executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS, viewport });
    contexts.push(ctx);
    return ctx;
  };
  const contexts: import("playwright-core").BrowserContext[] = [];
  const profiles: string[] = [];
  let sessionPath = "";

  beforeAll(async () => {
    dir = tempDir("browser");
    workspace = join(dir, "ws");
    mkdirSync(workspace);
    llm = await startScriptedOpenAI([
      {
        reasoning: "The user wants a greeting file; I will track it and write it.",
        text: "Sure, I will create hello.txt for you.",
        toolCalls: [
          { name: "todo_write", arguments: { todos: [{ content: "Write hello.txt", status: "in_progress" }] } },
          { name: "write_file", arguments: { path: "hello.txt", content: "written from the browser\n" } },
        ],
      },
      { text: "Done: hello.txt now greets you." },
      { text: "Bye, streamed over server-sent events." },
    ]);
    const home = join(dir, "home");
    writeConfig(home, llm);
    const tokenFile = writeSecret(dir, "token", TOKEN);
    s = await startServe(["--addr", "127.0.0.1:0", "--auth", "token", "--token-file", tokenFile, "--workspace", workspace], { home });
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    if (s && s.proc.exitCode === null) await s.stop();
    await llm?.close();
    cleanup(dir);
    for (const p of profiles) cleanup(p);
  });

  test("token link → chat streams an answer → approve write_file → file on disk", async () => {
    // A fresh profile (new context = fresh user-data-dir equivalent, no cookies).
    const ctx = await launch();
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    const urls: string[] = [];
    const errors: string[] = [];
    page.on("request", (r) => urls.push(r.url()));
    page.on("pageerror", (e) => errors.push(e.message));

    await page.goto(`${s.base}/#token=${TOKEN}`);
    await page.waitForSelector("#prompt");
    // The fragment is gone from the address bar and never reached the server in a URL.
    expect(page.url()).toBe(`${s.base}/`);
    expect(urls.some((u) => u.includes(TOKEN))).toBe(false);
    const cookies = await ctx.cookies();
    const session = cookies.find((c) => c.name === "reasonix_session");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Strict");
    await page.waitForSelector("#conn.websocket");

    await page.fill("#prompt", "Please create hello.txt with a greeting");
    await page.press("#prompt", "Enter");

    await page.waitForSelector(".msg.user >> text=Please create hello.txt");
    await page.waitForSelector(".msg.assistant >> text=Sure, I will create hello.txt for you.");
    // Reasoning is there but collapsed.
    const details = page.locator("details.reasoning").first();
    expect(await details.getAttribute("open")).toBeNull();
    expect(await details.textContent()).toContain("greeting file");
    // The live todo panel follows todo_write.
    await page.waitForSelector("#todo-list >> text=Write hello.txt");

    const allow = page.getByRole("button", { name: "Allow once" });
    await allow.waitFor();
    expect(await page.locator(".tool .approval .summary").textContent()).toContain("hello.txt");
    expect(existsSync(join(workspace, "hello.txt"))).toBe(false);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "serve-browser-approval.png") });
    await allow.click();

    await page.waitForSelector(".msg.assistant >> text=Done: hello.txt now greets you.");
    expect(readFileSync(join(workspace, "hello.txt"), "utf8")).toBe("written from the browser\n");
    await page.waitForSelector(".tool .tool-state.ok");
    // The turn is over: Send is enabled again and Cancel hidden.
    await page.waitForFunction(() => !(document.querySelector("#send") as HTMLButtonElement).disabled);

    // The session appears in the list and the URL names it.
    sessionPath = new URL(page.url()).pathname;
    expect(sessionPath).toMatch(/^\/sessions\/.+/);
    await page.waitForSelector("#session-list li.active");

    await page.screenshot({ path: join(ARTIFACTS, "serve-browser.png") });
    expect(errors).toEqual([]);
    // The model saw the approved result.
    const second = llm.chatRequests()[1]!.body;
    expect(JSON.stringify(second.messages)).toContain("hello.txt");
    await ctx.close();
  });

  test("without WebSocket the UI falls back to SSE; resume shows history; Shift+Enter is a newline", async () => {
    expect(sessionPath).not.toBe("");
    const ctx = await launch({ width: 1100, height: 760 });
    await ctx.addInitScript(() => {
      // Simulate a proxy/browser without WebSocket.
      delete (window as { WebSocket?: unknown }).WebSocket;
    });
    const page = await ctx.newPage();
    await page.goto(`${s.base}${sessionPath}#token=${TOKEN}`);
    await page.waitForSelector("#conn.sse");
    // History of the resumed session is rendered.
    await page.waitForSelector(".msg.assistant >> text=Done: hello.txt now greets you.");
    await page.waitForSelector(".tool >> text=write_file");

    await page.fill("#prompt", "say bye");
    await page.press("#prompt", "Shift+Enter");
    await page.type("#prompt", "please");
    expect(await page.inputValue("#prompt")).toBe("say bye\nplease");
    await page.press("#prompt", "Enter");
    await page.waitForSelector(".msg.assistant >> text=Bye, streamed over server-sent events.");
    const last = llm.chatRequests().at(-1)!.body;
    expect(JSON.stringify(last.messages)).toContain("say bye\\nplease");
    await ctx.close();
  });

  test("Esc cancels a running turn, even while the prompt is still on its way", async () => {
    const ctx = await launch();
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    await page.goto(`${s.base}${sessionPath}#token=${TOKEN}`);
    await page.waitForSelector("#conn.websocket");
    // The prompt request reaches the server a second late (a slow link): Esc
    // pressed meanwhile must still stop the turn that prompt starts.
    let held = false;
    await page.route("**/api/sessions/*/prompt", async (route) => {
      held = true;
      await Bun.sleep(1000);
      await route.continue();
    });
    llm.push({ text: "this would take a long time", delayMs: 60_000 });
    await page.fill("#prompt", "take your time");
    await page.press("#prompt", "Enter");
    await page.waitForSelector("#cancel:not([hidden])");
    await page.keyboard.press("Escape");
    expect(held).toBe(true);
    await page.waitForSelector(".system >> text=Cancelled.", { timeout: 20_000 });
    await page.waitForSelector("#cancel", { state: "hidden" });
    expect(await page.isDisabled("#send")).toBe(false);
    await ctx.close();
  });

  test("a browser without the token sees the sign-in page and cannot reach the API", async () => {
    const ctx = await launch();
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    const res = await page.goto(`${s.base}/`);
    expect(res?.status()).toBe(401);
    await page.waitForSelector("#login");
    await page.fill("#secret", "not-the-token-at-all");
    await page.press("#secret", "Enter");
    await page.waitForSelector("#login-error >> text=not valid");
    await page.fill("#secret", TOKEN);
    await page.press("#secret", "Enter");
    await page.waitForSelector("#prompt");
    await ctx.close();
  });
});

describe.skipIf(!haveChromium)("provider setup page in headless chromium", () => {
  test("no key: the page asks for it, saves it 0600 and the chat opens without a restart", async () => {
    const llm = await startScriptedOpenAI([{ text: "The new key works." }]);
    const dir = tempDir("browser-setup");
    const home = join(dir, "home");
    writeConfig(home, llm, false);
    const tokenFile = writeSecret(dir, "token", TOKEN);
    const s = await startServe(["--addr", "127.0.0.1:0", "--token-file", tokenFile, "--workspace", dir], { home });
    const udd = tempDir("udd");
    const { chromium } = await import("playwright-core");
    const ctx = await chromium.launchPersistentContext(udd, { executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
    try {
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      await page.goto(`${s.base}/#token=${TOKEN}`);
      await page.waitForSelector("#setup >> text=SCRIPTED_API_KEY");
      await page.fill("#api-key", "sk-typed-in-the-browser");
      await page.press("#api-key", "Enter");
      await page.waitForSelector("#prompt");
      const env = join(home, ".env");
      expect(statSync(env).mode & 0o777).toBe(0o600);
      expect(readFileSync(env, "utf8")).toContain("SCRIPTED_API_KEY=sk-typed-in-the-browser");
      await page.fill("#prompt", "hello");
      await page.press("#prompt", "Enter");
      await page.waitForSelector(".msg.assistant >> text=The new key works.");
      expect(llm.chatRequests()[0]!.headers.authorization).toBe("Bearer sk-typed-in-the-browser");
      // Same process: the engine was rebuilt in place.
      expect(s.proc.exitCode).toBeNull();
    } finally {
      await ctx.close();
      await s.stop();
      await llm.close();
      cleanup(dir);
      cleanup(udd);
    }
  });
});
