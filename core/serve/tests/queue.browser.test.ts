// The queue above the composer in real headless chromium: while a turn runs,
// Queue (and Alt+Enter) keep the text for after it — the box clears once the
// server has it; the list shows the queued prompts with Up/Down, Edit and
// Delete; Pause holds them past the turn's end and says so, Resume sends them
// in order, and the list goes away when they are done.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { pollFor } from "../../testing/fresh-wait.ts";
import { haveChromium, nextResponse, pageErrors, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(180_000);
if (!haveChromium) console.warn("SKIPPED web UI queue: /usr/bin/chromium not found (Debian: chromium)");

describe.skipIf(!haveChromium)("web UI queue", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("queue while busy, reorder, edit, delete, pause past the turn's end, resume sends them in order", async () => {
    const gate = Promise.withResolvers<void>();
    rig.llm.push({ text: "held answer", until: gate.promise }, { text: "first queued answer" }, { text: "second queued answer" });
    const page = await rig.open();
    await page.fill("#prompt", "the first prompt");
    await page.keyboard.press("Enter");
    await pollFor("the held request", () => rig.llm.chatRequests().length, (n) => n === 1);
    await page.locator("#queue-add").waitFor({ state: "visible" });

    await page.fill("#prompt", "queued alpha");
    const added = nextResponse(page, "POST", /\/queue$/);
    await page.click("#queue-add");
    await added;
    await page.locator("#queue .queue-item", { hasText: "queued alpha" }).waitFor();
    expect(await page.inputValue("#prompt")).toBe("");
    for (const t of ["queued beta", "queued gamma"]) {
      await page.fill("#prompt", t);
      await page.keyboard.press("Alt+Enter");
      await page.locator("#queue .queue-item", { hasText: t }).waitFor();
    }
    const texts = () => page.locator("#queue .queue-text").allTextContents();
    expect(await texts()).toEqual(["queued alpha", "queued beta", "queued gamma"]);
    // Above the composer.
    const [list, composer] = [await page.locator("#queue").boundingBox(), await page.locator("#composer").boundingBox()];
    expect(list!.y + list!.height).toBeLessThanOrEqual(composer!.y + 1);

    await page.click('#queue .queue-item[data-n="3"] .queue-up');
    await page.locator('#queue .queue-item[data-n="2"]', { hasText: "queued gamma" }).waitFor();
    await page.click('#queue .queue-item[data-n="3"] .queue-delete');
    await page.locator("#queue .queue-item", { hasText: "queued beta" }).waitFor({ state: "detached" });
    await page.click('#queue .queue-item[data-n="1"] .queue-edit-btn');
    await page.locator("#queue textarea.queue-edit").fill("queued alpha, edited");
    await page.click("#queue .queue-save");
    await page.locator("#queue .queue-item", { hasText: "queued alpha, edited" }).waitFor();
    expect(await texts()).toEqual(["queued alpha, edited", "queued gamma"]);

    // Paused, the turn's end sends nothing, and the list says so with a Resume button.
    await page.click("#queue-pause");
    await page.locator("#queue-paused").waitFor();
    gate.resolve();
    await page.getByText("held answer").waitFor();
    await page.locator("#queue-add").waitFor({ state: "hidden" });
    expect(rig.llm.chatRequests()).toHaveLength(1);
    await page.click("#queue-resume");
    await pollFor("both queued prompts sent", () => rig.llm.chatRequests().length, (n) => n === 3);
    const users = rig.llm.chatRequests().slice(1).map((r) => r.body.messages.filter((m: any) => m.role === "user").at(-1).content);
    expect(users).toEqual(["queued alpha, edited", "queued gamma"]);
    await page.getByText("second queued answer").waitFor();
    await page.locator("#queue").waitFor({ state: "detached" });
    expect(pageErrors(page)).toEqual([]);
  });
});
