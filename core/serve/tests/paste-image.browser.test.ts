// Pictures in the web UI's composer, in real headless chromium: a pasted
// picture and a dropped one show as thumbnails with their [image #N] token and
// a remove button; a dropped non-picture is refused by name under them; the
// removed one is not sent; the prompt's request to the scripted model carries
// the kept picture as an image part and names it in the text, which a reload
// shows in the transcript.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { causes, haveChromium, pageErrors, say, startRig, transfer, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI pasted pictures: /usr/bin/chromium not found (Debian: chromium)");

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const GIF = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

const thumbs = () => [...document.querySelectorAll("#attachments .attachment")].map((li) => li.textContent ?? "").join("|");

describe.skipIf(!haveChromium)("web UI: pasted and dropped pictures", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig({ extraProviders: "vision = true\n" });
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("paste and drop attach thumbnails; remove drops one; a text file is refused; the request carries the kept picture", async () => {
    rig.llm.push({ text: "A tiny GIF." });
    const page = await rig.open();
    await causes(page, () => transfer(page, "paste", [{ name: "shot.png", type: "image/png", b64: PNG }]), () => document.querySelectorAll("#attachments .attachment").length === 1);
    expect(await page.evaluate(thumbs)).toBe("[image #1]×");
    await causes(page, () => transfer(page, "drop", [{ name: "dot.gif", type: "image/gif", b64: GIF }, { name: "notes.txt", type: "text/plain", b64: btoa("plain words") }]), () => !!document.querySelector("#attach-error"));
    expect(await page.locator("#attach-error").textContent()).toBe("notes.txt is not a PNG, JPEG, GIF or WebP picture");
    expect(await page.evaluate(thumbs)).toBe("[image #1]×|[image #2]×");
    expect(await page.locator('#attachments img[alt="image #2: dot.gif"]').getAttribute("src")).toBe(`data:image/gif;base64,${GIF}`);
    await causes(page, () => page.click('button[aria-label="Remove image #1"]'), () => document.querySelectorAll("#attachments .attachment").length === 1);
    await say(page, "what is this?");
    await page.getByText("A tiny GIF.").waitFor();
    const user = rig.llm.chatRequests()[0]!.body.messages.filter((m: any) => m.role === "user").at(-1)!;
    expect(user.content).toEqual([
      { type: "text", text: "what is this?\n[image #2]" },
      { type: "image_url", image_url: { url: `data:image/gif;base64,${GIF}` } },
    ]);
    // Sent: the composer is empty of pictures again.
    await page.waitForFunction(() => !document.querySelector("#attachments"));
    // A reload shows where the picture was.
    await page.reload();
    await page.getByText("A tiny GIF.").waitFor();
    expect(await page.locator("#transcript").textContent()).toContain("[image #2]");
    expect(pageErrors(page)).toEqual([]);
  });
});
