// Pictures queued with a prompt in the web UI, in real headless chromium:
// while a turn runs, Queue takes the composer's pictures along with the text
// (the host keeps them with the item on disk), the queued item shows each as a
// thumbnail served by the server, the composer's pictures clear, and when the
// queued prompt runs its request to the scripted model carries the picture.
// Editing a queued prompt so that it no longer names its picture drops the
// picture (the host decides; the thumbnail goes and the request has none).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { pollFor } from "../../testing/fresh-wait.ts";
import { causes, haveChromium, nextResponse, pageErrors, say, startRig, transfer, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(180_000);
if (!haveChromium) console.warn("SKIPPED web UI queued pictures: /usr/bin/chromium not found (Debian: chromium)");

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const GIF = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
const attached = () => document.querySelectorAll("#attachments .attachment").length === 1;
/** Item `n`'s thumbnails, loaded (a 1×1 picture each): their alt texts. */
const thumbsOf = (page: Page, n: number) =>
  page.locator(`#queue .queue-item[data-n="${n}"] img.queue-image`).evaluateAll((imgs) => imgs.map((i) => `${(i as HTMLImageElement).alt}:${(i as HTMLImageElement).naturalWidth}`));

describe.skipIf(!haveChromium)("web UI queue: pictures", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig({ extraProviders: "vision = true\n" });
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("Queue takes the attached picture, the item shows it, the queued request carries it; an edit that drops its token drops it", async () => {
    const gate = Promise.withResolvers<void>();
    rig.llm.push({ text: "held answer", until: gate.promise }, { text: "a picture answer" }, { text: "an edited answer" });
    const page = await rig.open();
    await say(page, "the first prompt");
    await pollFor("the held request", () => rig.llm.chatRequests().length, (n) => n === 1);
    await page.locator("#queue-add").waitFor({ state: "visible" });

    // A picture and text, queued with the button: the composer clears (text and picture) once the server has both.
    await causes(page, () => transfer(page, "paste", [{ name: "shot.png", type: "image/png", b64: PNG }]), attached);
    await page.fill("#prompt", "what is this?");
    const added = nextResponse(page, "POST", /\/queue$/);
    await page.click("#queue-add");
    await added;
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('#queue .queue-item[data-n="1"] img.queue-image');
      return !!img && img.complete && img.naturalWidth === 1;
    });
    expect(await thumbsOf(page, 1)).toEqual(["image #1:1"]);
    expect(await page.locator("#queue .queue-item .queue-text").first().textContent()).toBe("what is this? [image #1]");
    await page.locator("#attachments").waitFor({ state: "detached" });
    expect(await page.inputValue("#prompt")).toBe("");

    // A second one with Alt+Enter; then edited so its text no longer names the picture: the host drops it.
    await causes(page, () => transfer(page, "paste", [{ name: "dot.gif", type: "image/gif", b64: GIF }]), attached);
    await page.fill("#prompt", "and this one");
    await page.keyboard.press("Alt+Enter");
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('#queue .queue-item[data-n="2"] img.queue-image')?.naturalWidth ?? 0) === 1);
    await page.click('#queue .queue-item[data-n="2"] .queue-edit-btn');
    expect(await page.locator("#queue textarea.queue-edit").inputValue()).toBe("and this one\n[image #1]");
    await page.locator("#queue textarea.queue-edit").fill("and this one, without it");
    await page.click("#queue .queue-save");
    await page.locator('#queue .queue-item[data-n="2"]', { hasText: "and this one, without it" }).waitFor();
    expect(await thumbsOf(page, 2)).toEqual([]);
    expect(await thumbsOf(page, 1)).toEqual(["image #1:1"]);

    // The turn ends: the queued prompts run in order, the first with its picture, the edited one without.
    gate.resolve();
    await pollFor("both queued prompts sent", () => rig.llm.chatRequests().length, (n) => n === 3);
    const users = rig.llm.chatRequests().slice(1).map((r) => r.body.messages.filter((m: any) => m.role === "user").at(-1).content);
    expect(users).toEqual([
      [
        { type: "text", text: "what is this?\n[image #1]" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
      "and this one, without it",
    ]);
    await page.getByText("an edited answer").waitFor();
    await page.locator("#queue").waitFor({ state: "detached" });
    expect(pageErrors(page)).toEqual([]);
  });
});
