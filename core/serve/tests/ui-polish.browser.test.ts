// Quieter transcript in real headless chromium against the real serve and the
// scripted model: a listing's output (ls, glob, grep, todo_write …) is folded
// behind one line and opens on demand, a failed one shows its error; with a
// mouse, a message's actions appear on hover or keyboard focus.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { haveChromium, pageErrors, say, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI polish browser tests: /usr/bin/chromium not found (Debian's chromium package; .ci/run installs it)");

describe.skipIf(!haveChromium)("web UI: a quieter transcript", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("a listing's output is folded and opens on click; a failed call shows its error; message actions show on hover", async () => {
    writeFileSync(join(rig.workspace, "notes.txt"), "alpha\nbeta\ngamma\n");
    rig.llm.push(
      { toolCalls: [{ name: "ls", arguments: { path: "." } }, { name: "read_file", arguments: { path: "missing.txt" } }] },
      { text: "read them" },
    );
    const page = await rig.open();
    await say(page, "read the notes");
    await page.waitForSelector(".msg.assistant >> text=read them");
    const ok = page.locator(".tool.status-ok").first();
    const fold = ok.locator("details.tool-fold");
    expect(await fold.locator("summary").textContent()).toMatch(/^output · \d+ lines?$/);
    expect(await ok.locator(".tool-output").isVisible()).toBe(false);
    await fold.locator("summary").click();
    await ok.locator(".tool-output >> text=notes.txt").waitFor({ state: "visible" });
    const failed = page.locator(".tool.status-err");
    expect(await failed.locator("details.tool-fold").count()).toBe(0);
    expect(await failed.locator(".tool-output").isVisible()).toBe(true);

    const actions = page.locator(".msg.user .msg-actions").first();
    await page.mouse.move(5, 890);
    await page.waitForFunction(() => getComputedStyle(document.querySelector(".msg.user .msg-actions")!).opacity === "0");
    await page.locator(".msg.user").first().hover();
    await page.waitForFunction(() => getComputedStyle(document.querySelector(".msg.user .msg-actions")!).opacity === "1");
    await actions.getByRole("button", { name: "Copy" }).focus();
    await page.mouse.move(5, 890);
    expect(await actions.evaluate((el) => getComputedStyle(el).opacity)).toBe("1");
    expect(pageErrors(page)).toEqual([]);
  });
});
