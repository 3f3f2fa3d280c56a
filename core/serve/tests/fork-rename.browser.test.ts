// Fork and rename in real headless chromium against the real serve and the
// scripted model: "Fork from here" on a message and Fork in the list, the
// fork's link back; renaming in the list and in the chat head, with a second
// tab following live; Esc cancels; a phone-sized screen stays usable.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { haveChromium, pageErrors, say, sessionOf, sessionShown, shot, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI fork/rename browser tests: /usr/bin/chromium not found (Debian's chromium package; .ci/run installs it)");

const turnsOf = (page: Page, id: string) =>
  page.evaluate(async (sid) => ((await (await fetch(`/api/sessions/${sid}/history`)).json()).events as { type: string; prompt?: string }[]).filter((e) => e.type === "turn_start").map((e) => e.prompt), id);
const rowTitle = (page: Page, id: string) => page.locator(`#session-list [data-session="${id}"] .title`);

async function twoTurns(rig: UiRig, page: Page, a: string, b: string): Promise<string> {
  rig.llm.push({ text: `answer to ${a}` }, { text: `answer to ${b}` });
  await say(page, a);
  await page.waitForSelector(`.msg.assistant >> text=answer to ${a}`);
  await page.waitForFunction(() => !document.querySelector(".msg.assistant.streaming") && !document.querySelector(".working"));
  await say(page, b);
  await page.waitForSelector(`.msg.assistant >> text=answer to ${b}`);
  await page.waitForFunction(() => !document.querySelector(".msg.assistant.streaming") && !document.querySelector(".working"));
  return sessionOf(page);
}

describe.skipIf(!haveChromium)("web UI fork and rename", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("Fork from here: a new session with the turns before that message, its text in the box; the original untouched; the list's Fork copies it all", async () => {
    const page = await rig.open();
    const orig = await twoTurns(rig, page, "first question", "second question");
    await page.locator(".msg.user").nth(1).hover();
    await page.locator(".msg.user").nth(1).getByRole("button", { name: "Fork from here" }).click();
    await page.waitForFunction((o) => location.pathname.startsWith("/sessions/") && !location.pathname.endsWith(o), orig);
    const fork = sessionOf(page);
    await page.waitForSelector("#forked-from");
    expect(await page.locator("#forked-from").textContent()).toContain("from first question, before turn 2");
    await page.waitForFunction(() => document.querySelectorAll(".msg.user").length === 1);
    expect(await page.locator(".msg.user .text").textContent()).toBe("first question");
    expect(await page.inputValue("#prompt")).toBe("second question");
    expect(await page.locator("#chat-title").textContent()).toBe("first question (fork)");
    expect(await page.locator("#banner").textContent()).toContain("Files on disk were not changed");
    await page.waitForSelector(`#session-list [data-session="${fork}"] .fork-mark`);
    await shot(page, "fork");

    // The fork runs on its own; the original keeps both turns.
    rig.llm.push({ text: "answer in the fork" });
    await page.press("#prompt", "Enter");
    await page.waitForSelector(".msg.assistant >> text=answer in the fork");
    expect(rig.llm.chatRequests().at(-1)!.body.messages.slice(1).map((m: { content: string }) => m.content)).toEqual(["first question", "answer to first question", "second question"]);
    expect(await turnsOf(page, orig)).toEqual(["first question", "second question"]);

    // Back to the original through the link; Fork in its row copies the whole conversation.
    await page.click("#forked-from");
    // The fork on screen has two prompts too: wait for the original to be drawn, not for the count.
    await sessionShown(page, orig);
    expect(await page.locator(".msg.user").count()).toBe(2);
    await page.locator(`#session-list [data-session="${orig}"]`).hover();
    await page.click(`#session-list [data-session="${orig}"] button.fork`);
    await page.waitForFunction((ids) => !ids.some((x) => location.pathname.endsWith(x)), [orig, fork]);
    await sessionShown(page, sessionOf(page));
    expect(await page.locator(".msg.user").count()).toBe(2);
    expect(await page.inputValue("#prompt")).toBe("");
    expect(await turnsOf(page, sessionOf(page))).toEqual(["first question", "second question"]);
    expect(pageErrors(page)).toEqual([]);
  });

  test("rename in the list shows in a second tab's list, chat head and tab title; the chat head renames too; Esc cancels", async () => {
    const a = await rig.open();
    rig.llm.push({ text: "hi" });
    await say(a, "hello there");
    await a.waitForSelector(".msg.assistant >> text=hi");
    const id = sessionOf(a);
    const b = await rig.open(`/sessions/${id}`);
    await b.waitForSelector(".msg.user >> text=hello there");

    // Esc leaves the title as it was.
    await a.locator(`#session-list [data-session="${id}"]`).hover();
    await a.click(`#session-list [data-session="${id}"] button.rename`);
    await a.fill("#session-list .title-edit", "Not this one");
    await a.press("#session-list .title-edit", "Escape");
    expect(await rowTitle(a, id).textContent()).toBe("hello there");
    expect(await a.locator("#session-list .title-edit").count()).toBe(0);

    // Enter saves; the other tab follows without a reload.
    await a.locator(`#session-list [data-session="${id}"]`).hover();
    await a.click(`#session-list [data-session="${id}"] button.rename`);
    await a.fill("#session-list .title-edit", "Login bug, part one");
    await a.press("#session-list .title-edit", "Enter");
    await a.waitForFunction((sid) => document.querySelector(`#session-list [data-session="${sid}"] .title`)?.textContent === "Login bug, part one", id);
    expect(await a.locator("#chat-title").textContent()).toBe("Login bug, part one");
    await b.waitForFunction((sid) => document.querySelector(`#session-list [data-session="${sid}"] .title`)?.textContent === "Login bug, part one", id, { timeout: 20_000 });
    await b.waitForFunction(() => document.querySelector("#chat-title")?.textContent === "Login bug, part one");
    // The tab title follows in an effect after the render that changed the chat head: wait for it too.
    await b.waitForFunction(() => document.title.includes("Login bug, part one"), undefined, { timeout: 20_000 }).catch(() => {});
    expect(await b.title()).toContain("Login bug, part one");

    // The chat head in the second tab renames back the other way.
    await b.click("#chat-title");
    await b.fill("#chat-head .title-edit", "Renamed from tab B");
    await b.press("#chat-head .title-edit", "Enter");
    await a.waitForFunction(() => document.querySelector("#chat-title")?.textContent === "Renamed from tab B", undefined, { timeout: 20_000 });
    const listed = await a.evaluate(async () => (await (await fetch("/api/sessions")).json()).sessions as { id: string; title: string }[]);
    expect(listed.find((s) => s.id === id)!.title).toBe("Renamed from tab B");
    await shot(b, "rename");
    expect(pageErrors(a)).toEqual([]);
    expect(pageErrors(b)).toEqual([]);
  });

  test("on a 390×844 phone the chat head and the drawer's rename and fork fit without sideways scrolling", async () => {
    const page = await rig.open("/", { viewport: { width: 390, height: 844 } });
    rig.llm.push({ text: "short answer" });
    await say(page, "a phone question with a rather long first prompt that will not fit");
    await page.waitForSelector(".msg.assistant >> text=short answer");
    const id = sessionOf(page);
    expect(await page.locator("#fork-session").isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.click("#drawer-toggle");
    await page.click(`#session-list [data-session="${id}"] button.rename`);
    await page.fill("#session-list .title-edit", "On the phone");
    await page.press("#session-list .title-edit", "Enter");
    await page.waitForFunction(() => document.querySelector("#chat-title")?.textContent === "On the phone");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, "rename-phone");
  });
});
