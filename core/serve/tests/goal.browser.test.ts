// The web UI's goal mode in real headless chromium: `/goal …` in the prompt
// box starts it, the goal bar follows it (status, Pause/Resume), goal turns
// show as one line, and the loop reaches the scripted model.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { haveChromium, nextResponse, pageErrors, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI goal mode: /usr/bin/chromium not found (Debian: chromium)");

const report = (status: string, evidence: string) => ({ name: "update_goal", arguments: { status, evidence } });

describe.skipIf(!haveChromium)("web UI goal mode", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("/goal starts a goal; the bar shows it pause and resume; it completes", async () => {
    // The first turn's answer waits until the pause has reached the server.
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    rig.llm.push({ toolCalls: [report("continue", "first half")], until: held }, { text: "Half way." }, { toolCalls: [report("complete", "both halves done")] }, { text: "All done." });
    const page = await rig.open();
    await page.fill("#prompt", "/goal finish both halves");
    await page.keyboard.press("Enter");
    await page.locator("#goal-bar").getByText("finish both halves").waitFor();
    expect(await page.locator("#goal-status").textContent()).toBe("active");
    const pauseSent = nextResponse(page, "POST", /\/goal$/, "pause");
    await page.click("#goal-pause");
    await pauseSent;
    release();
    await page.locator("#goal-status", { hasText: "paused" }).waitFor();
    await page.getByText("Half way.").waitFor();
    expect(rig.llm.chatRequests()).toHaveLength(2);
    await page.getByText("goal turn 1", { exact: true }).first().waitFor();
    await page.click("#goal-resume");
    await page.locator("#goal-status", { hasText: "complete" }).waitFor();
    await page.getByText("All done.").waitFor();
    expect(await page.locator("#goal-bar").textContent()).toContain("2 turns · 4 requests");
    await page.fill("#prompt", "/goal status");
    await page.keyboard.press("Enter");
    await page.getByText("status: complete").waitFor();
    expect(pageErrors(page)).toEqual([]);
  });
});
