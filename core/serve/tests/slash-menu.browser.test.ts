// The web UI's `/` menu in real headless chromium: it lists the workspace's
// custom commands (GET /api/commands), inserts the chosen one, and the
// engine expands it before the scripted model sees it.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { causes, haveChromium, pageErrors, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI / menu: /usr/bin/chromium not found (Debian: chromium)");

describe.skipIf(!haveChromium)("web UI / menu", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
    mkdirSync(join(rig.home, "commands"), { recursive: true });
    writeFileSync(join(rig.home, "commands/review.md"), "---\ndescription: review an area\nargument-hint: <area>\n---\nReview the $1 module carefully\n");
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("typing / lists custom commands; Enter inserts one; sending it reaches the model expanded", async () => {
    rig.llm.push({ text: "Reviewed." });
    const page = await rig.open();
    await page.click("#prompt");
    await page.keyboard.type("/rev");
    const item = page.locator('ul[aria-label="Commands"] li');
    await item.first().waitFor();
    expect(await item.allTextContents()).toEqual(["/review <area> review an area"]);
    await page.keyboard.press("Enter");
    expect(await page.inputValue("#prompt")).toBe("/review ");
    await page.keyboard.type("auth");
    await page.keyboard.press("Enter");
    await page.getByText("Reviewed.").waitFor();
    expect(rig.llm.chatRequests()[0]!.body.messages.at(-1).content).toBe("Review the auth module carefully\n");
    expect(pageErrors(page)).toEqual([]);
  });

  test("an answer for an earlier keystroke that arrives after the pick does not open the menu again", async () => {
    const page = await rig.open();
    const answered = () => page.locator("#prompt").evaluate((el) => Number((el as HTMLElement).dataset.slashAnswered ?? 0));
    await page.click("#prompt");
    await page.keyboard.type("/rev");
    const item = page.locator('ul[aria-label="Commands"] li');
    await item.first().waitFor();
    // Back to a bare "/" reads the catalog again: hold that answer until after the pick.
    let held!: (r: import("playwright-core").Route) => void;
    const heldRoute = new Promise<import("playwright-core").Route>((r) => (held = r));
    await page.route("**/api/commands", (route) => held(route));
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Backspace");
    const route = await heldRoute;
    // The menu still shows the matches for /r; Enter picks the first.
    const first = (await item.first().textContent())!.split(" ")[0]!;
    await causes(page, () => page.keyboard.press("Enter"), () => !document.querySelector('ul[aria-label="Commands"]'));
    expect(await page.inputValue("#prompt")).toBe(`${first} `);
    const before = await answered();
    await route.continue();
    await page.waitForFunction((n) => Number((document.querySelector("#prompt") as HTMLElement | null)?.dataset.slashAnswered ?? 0) > n, before);
    expect(await item.count()).toBe(0);
    expect(await page.inputValue("#prompt")).toBe(`${first} `);
  });
});
