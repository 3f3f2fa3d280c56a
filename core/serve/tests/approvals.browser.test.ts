// The web UI's approval card is a deliberate act (real `reasonix serve`,
// scripted model, headless chromium): it never takes the keyboard, so text
// typed as it arrives stays in the composer and grants nothing; and each
// "always allow" button says which file it writes, and writes only that one.
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { haveChromium, pageErrors, say, shot, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web approval tests: /usr/bin/chromium is not installed");

const CALC = "def add(a, b):\n    return a - b\n";

describe.skipIf(!haveChromium)("web UI approvals", () => {
  // One serve per test: a refused call ends its turn and leaves the script's later steps unused.
  let rig: UiRig;
  beforeEach(async () => {
    rig = await startRig();
  });
  afterEach(async () => {
    await rig?.close();
  });

  test("typing into the empty composer as the card appears (Space included) grants nothing; the text stays; the composer keeps the focus", async () => {
    writeFileSync(join(rig.workspace, "calc.py"), CALC);
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    rig.llm.push(
      { toolCalls: [{ name: "edit_file", arguments: { path: "calc.py", old_string: "return a - b", new_string: "return a + b" } }], until: held },
      { toolCalls: [{ name: "bash", arguments: { command: "touch ran.txt", description: "make a file" } }] },
      { text: "both done" },
    );
    const page = await rig.open();
    await say(page, "fix calc.py");
    await page.waitForSelector(".msg.user >> text=fix calc.py");
    await page.focus("#prompt");
    release();
    await page.locator(".tool.status-ask").waitFor();
    const sentence = "no wait, use a guard clause and say yes or no please";
    await page.keyboard.type(sentence, { delay: 15 });
    await page.waitForFunction((t) => (document.querySelector("#prompt") as HTMLTextAreaElement).value === t, sentence);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("prompt");
    expect(await page.locator(".tool.status-ask").count()).toBe(1);
    expect(await page.locator(".tool.status-allowed, .tool.status-ok").count()).toBe(0);
    expect(readFileSync(join(rig.workspace, "calc.py"), "utf8")).toBe(CALC);
    expect(existsSync(join(rig.workspace, "ran.txt"))).toBe(false);
    expect(existsSync(join(rig.workspace, "reasonix.toml"))).toBe(false);
    // Answering stays possible from the keyboard, deliberately: Tab to the button, then Enter.
    await page.getByRole("button", { name: "Deny" }).focus();
    await page.keyboard.press("Enter");
    await page.locator(".tool.status-denied").waitFor();
    expect(readFileSync(join(rig.workspace, "calc.py"), "utf8")).toBe(CALC);
    expect(await page.inputValue("#prompt")).toBe(sentence);
    expect(pageErrors(page)).toEqual([]);
  });

  test("the card names both files 'always allow' can write; each button writes only its own file", async () => {
    rig.llm.push(
      { toolCalls: [{ name: "write_file", arguments: { path: "u.txt", content: "u\n" } }] },
      { text: "wrote u" },
      { toolCalls: [{ name: "write_file", arguments: { path: "p.txt", content: "p\n" } }] },
      { text: "wrote p" },
    );
    const userFile = join(rig.home, "config.toml");
    const projectFile = join(rig.workspace, "reasonix.toml");
    const page = await rig.open();
    await say(page, "write u.txt");
    const card = page.locator(".tool.status-ask");
    await card.waitFor();
    const targets = await card.locator(".persist-targets").textContent();
    expect(targets).toContain(`adds Edit(${rig.workspace}/u.txt) to ${userFile}`);
    expect(targets).toContain(`adds Edit(u.txt) to ${projectFile}`);
    await shot(page, "approval-always-targets");
    await card.getByRole("button", { name: "Always allow (your config)" }).click();
    await page.waitForSelector(".msg.assistant >> text=wrote u");
    expect(readFileSync(userFile, "utf8")).toContain(`"Edit(${rig.workspace}/u.txt)"`);
    expect(existsSync(projectFile)).toBe(false);
    await say(page, "write p.txt");
    await page.locator(".tool.status-ask").getByRole("button", { name: "Always allow in this project" }).click();
    await page.waitForSelector(".msg.assistant >> text=wrote p");
    expect(readFileSync(projectFile, "utf8")).toContain('"Edit(p.txt)"');
    expect(readFileSync(userFile, "utf8")).not.toContain("p.txt");
    expect(pageErrors(page)).toEqual([]);
  });
});
