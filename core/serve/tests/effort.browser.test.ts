// The web UI's reasoning-effort control in real headless chromium: choosing
// "high" reaches the engine, and the next request to the scripted model
// carries reasoning_effort.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { haveChromium, pageErrors, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI effort control: /usr/bin/chromium not found (Debian: chromium)");

describe.skipIf(!haveChromium)("web UI effort control", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("pick an effort for the open session; the next request carries it", async () => {
    rig.llm.push({ text: "First." }, { text: "Second." });
    const page = await rig.open();
    await page.fill("#prompt", "one");
    await page.keyboard.press("Enter");
    await page.getByText("First.").waitFor();
    expect(rig.llm.chatRequests()[0]!.body.reasoning_effort).toBeUndefined();
    // The banner hides itself after 2.5 s: start watching before choosing, so
    // a slow machine cannot make the test look after it has gone.
    const banner = page.getByText("Reasoning effort high from the next request on.").waitFor();
    const answered = page.waitForResponse((r) => r.url().endsWith("/effort") && r.request().method() === "POST");
    await page.selectOption("#effort", "high");
    expect((await answered).status()).toBe(200);
    await banner;
    await page.fill("#prompt", "two");
    await page.keyboard.press("Enter");
    await page.getByText("Second.").waitFor();
    expect(rig.llm.chatRequests()[1]!.body.reasoning_effort).toBe("high");
    expect(await page.inputValue("#effort")).toBe("high");
    expect(pageErrors(page)).toEqual([]);
  });
});
