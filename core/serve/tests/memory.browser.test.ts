// The web UI's Memory panel in real headless chromium against `reasonix
// serve`: the facts by scope and type (text shown as text, never HTML), the
// recall trace of the turn just sent, forget → archived, recover from a
// backup as revision n+1, a fact's revisions and restore.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { MemoryStore } from "../../memory/store.ts";
import { causes, haveChromium, newSession, pageErrors, say, shot, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI Memory panel: /usr/bin/chromium not found (Debian: chromium)");

const ID = "tests-need-compose";
const HOSTILE = '<img src=x onerror="window.__pwned=1"> <b>bold?</b>';

describe.skipIf(!haveChromium)("web UI Memory panel", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("facts by scope and type, the turn's recall trace, forget → archived → recover is revision 2, revisions and restore", async () => {
    const store = new MemoryStore(rig.home, rig.workspace);
    store.create({ id: ID, text: "The integration tests need docker compose up -d postgres first.", type: "project", scope: "project" });
    store.create({ id: "hostile-text", text: HOSTILE, type: "reference", scope: "project" });
    store.create({ id: "prefers-pnpm", text: "I prefer pnpm.", type: "user", scope: "global" });
    const backup = join(rig.dir, "backup.md");
    copyFileSync(store.get(ID)!.path, backup);
    rig.llm.push({ text: "Compose first." });

    const page = await rig.open();
    await newSession(page);
    await say(page, "how do the integration tests run?");
    await page.getByText("Compose first.").waitFor();
    await page.locator("#prompt:not([disabled])").waitFor();

    await causes(page, () => page.click("#memory-toggle"), (id: string) => !!document.querySelector(`#recall-trace [data-pick="${id}"]`), ID);
    const trace = await page.locator("#recall-trace").textContent();
    expect(trace).toContain("how do the integration tests run?");
    expect(trace).toMatch(/budget used 1\/4 facts, \d+\/2400 characters/);
    expect(trace).toContain("matched ");
    await shot(page, "memory-panel");
    const facts = page.locator("#memory-facts");
    expect(await facts.locator("h3").allTextContents()).toEqual([expect.stringContaining("Project facts ("), "Global facts"]);
    expect(await facts.locator(".mem-type h4").allTextContents()).toEqual(["project", "reference", "user"]);
    // Text, never markup: the hostile fact shows its characters and adds no element.
    expect(await page.locator('[data-fact="hostile-text"] .fact-text').textContent()).toBe(HOSTILE);
    expect(await page.locator("#memory-panel img, #memory-panel b").count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();

    await causes(page, () => page.click(`#memory-facts [data-fact="${ID}"] .fact-forget`), (id: string) => !!document.querySelector(`#memory-archived [data-fact="${id}"]`), ID);
    expect(await page.locator("#memory-note").textContent()).toBe(`Archived ${ID} at revision 1.`);
    expect(await page.locator(`#memory-facts [data-fact="${ID}"]`).count()).toBe(0);

    await page.fill("#recover-path", backup);
    await causes(page, () => page.click("#recover-go"), (id: string) => !!document.querySelector(`#memory-facts [data-fact="${id}"]`), ID);
    expect(await page.locator("#memory-note").textContent()).toBe(`Recovered ${ID} from ${backup} as revision 2.`);
    expect(await page.locator(`#memory-archived [data-fact="${ID}"]`).count()).toBe(0);

    await causes(page, () => page.click(`#memory-facts [data-fact="${ID}"] .fact-revisions`), () => document.querySelectorAll('.revisions [data-revision]').length === 2);
    expect(await page.locator('.revisions [data-revision="2"]').textContent()).toContain("· current");
    await causes(page, () => page.click('.revisions [data-revision="1"] .revision-restore'), () => !!document.querySelector('.revisions [data-revision="3"]'));
    expect(await page.locator("#memory-note").textContent()).toBe(`Restored ${ID} revision 1 as revision 3.`);
    expect(store.revisions(ID).map((r) => [r.fact.revision, r.current])).toEqual([[1, false], [2, false], [3, true]]);

    // A broken path says why, in the panel.
    await page.fill("#recover-path", join(rig.dir, "no-such.md"));
    await causes(page, () => page.click("#recover-go"), () => (document.querySelector("#memory-note")?.textContent ?? "").includes("no such file"));
    expect(await page.locator("#memory-note").getAttribute("role")).toBe("alert");
    expect(rig.llm.chatRequests()).toHaveLength(1);
    expect(pageErrors(page)).toEqual([]);
  });

  test("on a phone the panel opens from the sessions drawer, which makes way; Escape closes it", async () => {
    const page = await rig.open("/", { viewport: { width: 390, height: 844 } });
    expect(await page.locator("#memory-toggle").isVisible()).toBe(false);
    await page.click("#drawer-toggle");
    await page.locator("#memory-toggle").waitFor({ state: "visible" });
    await causes(page, () => page.click("#memory-toggle"), () => !!document.querySelector("#memory-panel") && !document.querySelector("#sessions.open"));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await causes(page, () => page.press("#memory-close", "Escape"), () => !document.querySelector("#memory-panel"));
    expect(pageErrors(page)).toEqual([]);
  });
});
