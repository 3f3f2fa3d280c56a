// Web UI v2 features in real headless chromium against the real serve and
// the scripted model: markdown while streaming, diffs before approval and
// after, rewind, mode switch, the working indicator, cost/context, session
// search, @file mentions, host name, and screenshots of the main screens.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { causes, CHROMIUM, haveChromium, LAUNCH_ARGS, newSession, nextResponse, pageErrors, say, shot, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI v2 browser tests: /usr/bin/chromium not found (Debian's chromium package; .ci/run installs it)");

const ANSWER = [
  "## Plan",
  "",
  "Three steps, see [the docs](https://example.com/docs) and <b>not html</b>:",
  "",
  "- read the file",
  "- change `greet`",
  "- run the tests",
  "",
  "| step | tool |",
  "| --- | --- |",
  "| 1 | read_file |",
  "| 2 | edit_file |",
  "",
  "> quoted note",
  "",
  "```ts",
  "export function greet(name: string): string {",
  "  return `hello ${name}`;",
  "}",
  "```",
  "",
  "Done.",
].join("\n");

/** Wait until the @ list shows exactly `paths`, in order. */
const mentionsAre = (page: import("playwright-core").Page, paths: string[]) =>
  page.waitForFunction((want) => [...document.querySelectorAll(".mentions li")].map((li) => li.textContent).join("\n") === want, paths.join("\n"));

describe.skipIf(!haveChromium)("web UI v2 features", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
    // Before any @ query: the server keeps the workspace's file list for a few seconds.
    writeFileSync(join(rig.workspace, "mention-target.ts"), "x\n");
    writeFileSync(join(rig.workspace, "held-answer.ts"), "x\n");
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("markdown renders while streaming (heading, list, table, open code block) and when final (highlighting, copy)", async () => {
    // First answer stalls inside the code fence; the retry-free cancel keeps it. Second answer is the full one.
    const cut = ANSWER.indexOf("  return");
    rig.llm.push({ text: ANSWER, chunkSize: 8, stallAfter: Math.ceil(cut / 8) + 1 }, { text: ANSWER, chunkSize: 8 });
    const page = await rig.open();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await say(page, "plan it");
    await page.waitForSelector(".msg.assistant .md pre code >> text=export function greet");
    const mid = page.locator(".msg.assistant").last();
    expect(await mid.locator("h2").textContent()).toBe("Plan");
    expect(await mid.locator("li").count()).toBe(3);
    expect(await mid.locator("table td").count()).toBe(4);
    expect(await mid.locator("blockquote").textContent()).toContain("quoted note");
    // Raw HTML is text; links are real links that open elsewhere.
    expect(await mid.locator("b").count()).toBe(0);
    expect(await mid.textContent()).toContain("<b>not html</b>");
    expect(await mid.locator("a").getAttribute("href")).toBe("https://example.com/docs");
    // The open fence is already a code block (no jump when it closes).
    const openHeight = await mid.locator(".codeblock").boundingBox();
    expect(openHeight).not.toBeNull();
    await shot(page, "markdown-streaming");
    await page.keyboard.press("Escape");
    await page.waitForSelector(".system >> text=Cancelled.");

    await say(page, "again, fully");
    await page.waitForSelector(".msg.assistant >> text=Done.");
    await page.waitForFunction(() => !document.querySelector(".msg.assistant.streaming"));
    const fin = page.locator(".msg.assistant").last();
    expect(await fin.locator(".codeblock .lang").textContent()).toBe("ts");
    expect(await fin.locator(".codeblock .hljs-keyword").count()).toBeGreaterThan(0);
    await fin.locator(".codeblock button.copy").click();
    await page.waitForSelector(".codeblock button.copy >> text=Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain("export function greet(name: string): string {");
    await shot(page, "markdown-final");
    expect(pageErrors(page)).toEqual([]);
  });

  test("each writer tool shows a real diff before approval; the result and the changed-files panel show what landed", async () => {
    writeFileSync(join(rig.workspace, "greet.ts"), "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n");
    writeFileSync(join(rig.workspace, "old-name.txt"), "moving\n");
    rig.llm.push(
      { toolCalls: [{ name: "write_file", arguments: { path: "notes.md", content: "# Notes\nfirst line\n" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "greet.ts" } }] },
      { toolCalls: [{ name: "edit_file", arguments: { path: "greet.ts", old_string: "export const b = 2;", new_string: "export const b = 20;" } }] },
      { toolCalls: [{ name: "multi_edit", arguments: { path: "greet.ts", edits: [{ old_string: "const a = 1", new_string: "const a = 10" }, { old_string: "const c = 3", new_string: "const c = 30" }] } }] },
      { toolCalls: [{ name: "move_file", arguments: { source: "old-name.txt", destination: "new-name.txt" } }] },
      { text: "All four writers ran." },
    );
    const page = await rig.open();
    await say(page, "use every writer");
    const expectDiff = async (lines: string[], keyboard = false) => {
      const allow = page.getByRole("button", { name: "Allow once" });
      await allow.waitFor();
      const card = page.locator(".tool.status-ask").first();
      const call = await card.getAttribute("data-call");
      const diffText = await card.locator(".filediff").first().textContent();
      for (const l of lines) expect(diffText).toContain(l);
      // Not the JSON input with \n escapes.
      expect(await card.locator("details.tool-input").count()).toBe(0);
      if (keyboard) {
        // A live request never takes the keyboard (the composer keeps it); a button reached on purpose answers with Enter.
        expect(await page.evaluate(() => document.activeElement?.textContent)).not.toBe("Allow once");
        await allow.focus();
        await page.keyboard.press("Enter");
      } else await allow.click();
      await page.locator(`.tool[data-call="${call}"]:not(.status-ask)`).waitFor();
    };
    await expectDiff(["notes.md", "new file", "# Notes", "first line", "+2"], true);
    await shot(page, "diff-write");
    await expectDiff(["greet.ts", "export const b = 2;", "export const b = 20;", "+1", "−1"]);
    await page.getByRole("button", { name: "Allow once" }).waitFor();
    await page.locator(".tool.status-ask button.wide-only").click();
    expect(await page.locator(".tool.status-ask table.diff.split").count()).toBe(1);
    await shot(page, "diff-side-by-side");
    await expectDiff(["export const a = 10;", "export const c = 30;", "+2", "−2"]);
    await expectDiff(["old-name.txt → new-name.txt", "moved"]);
    await page.waitForSelector(".msg.assistant >> text=All four writers ran.");
    expect(readFileSync(join(rig.workspace, "greet.ts"), "utf8")).toBe("export const a = 10;\nexport const b = 20;\nexport const c = 30;\n");
    expect(existsSync(join(rig.workspace, "new-name.txt"))).toBe(true);
    // Result cards show what landed.
    expect(await page.locator(".tool-diff .filediff").count()).toBeGreaterThanOrEqual(4);
    const panel = await page.locator("#changed-files").textContent();
    for (const f of ["notes.md", "greet.ts", "new-name.txt"]) expect(panel).toContain(f);
    // A reload keeps the landed diffs (they are in the session log).
    await page.reload();
    await page.waitForSelector(".msg.assistant >> text=All four writers ran.");
    expect(await page.locator(".tool-diff .filediff").count()).toBeGreaterThanOrEqual(4);
  });

  test("rewind from the UI restores the file on disk and drops the turn", async () => {
    rig.llm.push({ toolCalls: [{ name: "write_file", arguments: { path: "rewind-me.txt", content: "temporary\n" } }] }, { text: "Wrote rewind-me.txt." });
    const page = await rig.open();
    await say(page, "make a temporary file");
    await page.getByRole("button", { name: "Allow once" }).click();
    await page.waitForSelector(".msg.assistant >> text=Wrote rewind-me.txt.");
    await page.waitForFunction(() => !document.querySelector("#cancel:not([hidden])"));
    expect(existsSync(join(rig.workspace, "rewind-me.txt"))).toBe(true);
    await page.locator(".msg.user", { hasText: "make a temporary file" }).getByRole("button", { name: "Rewind…" }).click();
    await page.locator("#rewind-dialog").waitFor();
    await shot(page, "rewind-dialog");
    await page.click("#rewind-both");
    await page.waitForSelector("#banner >> text=Rewound to before turn 1");
    expect(existsSync(join(rig.workspace, "rewind-me.txt"))).toBe(false);
    expect(await page.locator(".msg.user >> text=make a temporary file").count()).toBe(0);
  });

  test("permission mode switch: auto writes without asking", async () => {
    rig.llm.push({ toolCalls: [{ name: "write_file", arguments: { path: "auto.txt", content: "no card\n" } }] }, { text: "Wrote it in auto mode." });
    const page = await rig.open();
    await newSession(page);
    // The box shows "auto" as soon as it is picked; the prompt must wait for the server to have it.
    const switched = nextResponse(page, "POST", /\/mode$/, "auto");
    await page.selectOption("#mode", "auto");
    await switched;
    await say(page, "write auto.txt");
    await page.waitForSelector(".msg.assistant >> text=Wrote it in auto mode.");
    expect(await page.getByRole("button", { name: "Allow once" }).count()).toBe(0);
    expect(readFileSync(join(rig.workspace, "auto.txt"), "utf8")).toBe("no card\n");
  });

  test("working indicator, cost and context use, host name in header and title", async () => {
    // The answer waits until the test has seen the working indicator.
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    rig.llm.push({ text: "Slow but here.", until: held, usage: { input: 16000, output: 100 } });
    const page = await rig.open();
    expect(await page.locator("#host").textContent()).toBe(hostname());
    expect(await page.title()).toContain(hostname());
    await say(page, "take a moment");
    await page.locator(".working").waitFor();
    release();
    await page.waitForSelector(".msg.assistant >> text=Slow but here.");
    await page.locator(".working").waitFor({ state: "detached" });
    const usage = await page.locator("#usage").textContent();
    expect(usage).toContain("cost");
    expect(usage).toContain("USD");
    expect(usage).toMatch(/context \d+% of 64\.0k/);
  });

  test("session search filters the list; @ mentions complete workspace paths", async () => {
    const page = await rig.open();
    // The list loads after the page opens: wait for the sessions the earlier tests made.
    await page.waitForFunction(() => document.querySelectorAll("#session-list li").length > 1);
    const before = await page.locator("#session-list li").count();
    await causes(page, () => page.fill("#session-search", "temporary"), (n: number) => document.querySelectorAll("#session-list li").length < n, before);
    await page.fill("#session-search", "zzz-no-such-session");
    await page.waitForSelector("#session-list >> text=No matching sessions.");
    await page.fill("#session-search", "");
    await page.click("#prompt");
    await page.keyboard.type("look at @mention-t");
    // The list answering what was typed (an earlier keystroke's list may hold other paths first).
    await mentionsAre(page, ["mention-target.ts"]);
    await page.keyboard.press("Enter");
    expect(await page.inputValue("#prompt")).toBe("look at @mention-target.ts ");
    expect(await page.locator(".mentions").count()).toBe(0);
  });

  test("@ mentions: an answer that arrives after the pick does not open the list again", async () => {
    const page = await rig.open();
    const answered = () => page.locator("#prompt").evaluate((el) => Number((el as HTMLElement).dataset.mentionsAnswered ?? 0));
    await page.click("#prompt");
    await page.keyboard.type("look at @held-a");
    await mentionsAre(page, ["held-answer.ts"]);
    // Hold the answer to the next keystroke's query until the pick has closed the list.
    let held!: (r: import("playwright-core").Route) => void;
    const heldRoute = new Promise<import("playwright-core").Route>((r) => (held = r));
    await page.route("**/api/files?q=held-an", (route) => held(route));
    await page.keyboard.type("n");
    const route = await heldRoute;
    await causes(page, () => page.keyboard.press("Enter"), () => !document.querySelector(".mentions"));
    expect(await page.inputValue("#prompt")).toBe("look at @held-answer.ts ");
    const before = await answered();
    await route.continue();
    await page.waitForFunction((n) => Number((document.querySelector("#prompt") as HTMLElement | null)?.dataset.mentionsAnswered ?? 0) > n, before);
    expect(await page.locator(".mentions").count()).toBe(0);
    expect(await page.inputValue("#prompt")).toBe("look at @held-answer.ts ");
  });

  test("screens: desktop, phone and dark screenshots; axe-core finds no serious or critical violations", async () => {
    const axe = readFileSync(join(import.meta.dir, "..", "..", "..", "node_modules", "axe-core", "axe.min.js"), "utf8");
    const audit = async (page: import("playwright-core").Page, name: string) => {
      await page.evaluate(axe);
      const result = await page.evaluate(async () => {
        const r = await (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe.run({ resultTypes: ["violations"] });
        return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
      });
      expect({ screen: name, violations: result }).toEqual({ screen: name, violations: [] });
    };
    writeFileSync(join(rig.workspace, "axe.txt"), "one\ntwo\n");
    rig.llm.push({ text: ANSWER, reasoning: "thinking about it" }, { toolCalls: [{ name: "edit_file", arguments: { path: "axe.txt", old_string: "two", new_string: "three" } }] });
    const desk = await rig.open("/", { bypassCSP: true });
    await newSession(desk);
    await say(desk, "show everything");
    await desk.waitForSelector(".msg.assistant >> text=Done.");
    await desk.waitForFunction(() => !document.querySelector("#cancel:not([hidden])"));
    await say(desk, "edit axe.txt");
    await desk.getByRole("button", { name: "Allow once" }).waitFor();
    await shot(desk, "desktop");
    await audit(desk, "desktop with approval");
    const path = new URL(desk.url()).pathname;

    const dark = await rig.open(path, { dark: true, bypassCSP: true });
    await dark.getByRole("button", { name: "Allow once" }).waitFor();
    await shot(dark, "dark");
    await audit(dark, "dark");

    const phone = await rig.open(path, { viewport: { width: 390, height: 844 }, bypassCSP: true });
    await phone.getByRole("button", { name: "Allow once" }).waitFor();
    await shot(phone, "phone");
    await audit(phone, "phone");
    await phone.click("#drawer-toggle");
    await audit(phone, "phone drawer");
    await phone.getByRole("button", { name: "Deny" }).count();

    // The sign-in page, as a browser without the token sees it.
    const { chromium } = await import("playwright-core");
    const ctx = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
    try {
      const p = await (await ctx.newContext({ bypassCSP: true })).newPage();
      await p.goto(`${rig.s.base}/`);
      await p.waitForSelector("#login");
      await shot(p, "login");
      await audit(p, "sign-in");
    } finally {
      await ctx.close();
    }
  });
});
