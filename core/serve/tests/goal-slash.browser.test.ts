// `/goal` in the web UI's `/` menu (real headless chromium): listed with its
// description and argument hint from GET /api/commands — the same entry the
// terminal chat and ACP list — and picking it then typing an objective starts
// a goal that reaches the scripted model.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { GOAL_COMMAND } from "../../goal/command.ts";
import { haveChromium, pageErrors, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI /goal in the / menu: /usr/bin/chromium not found (Debian: chromium)");

describe.skipIf(!haveChromium)("web UI / menu lists /goal", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("typing /go lists /goal with its hint and description; Enter inserts it; the goal starts", async () => {
    rig.llm.push({ toolCalls: [{ name: "update_goal", arguments: { status: "complete", evidence: "said hi" } }] }, { text: "Hi from the goal." });
    const page = await rig.open();
    await page.click("#prompt");
    await page.keyboard.type("/go");
    const item = page.locator('ul[aria-label="Commands"] li');
    await item.first().waitFor();
    expect(await item.allTextContents()).toEqual([`/goal ${GOAL_COMMAND.argumentHint} ${GOAL_COMMAND.description}`]);
    expect(await item.first().textContent()).toContain("<objective> | status | pause | resume | clear");
    await page.keyboard.press("Enter");
    expect(await page.inputValue("#prompt")).toBe("/goal ");
    await page.keyboard.type("say hi");
    await page.keyboard.press("Enter");
    await page.locator("#goal-status", { hasText: "complete" }).waitFor();
    await page.getByText("Hi from the goal.").waitFor();
    // A goal turn, not a prompt: the model saw the goal's own prompt with the objective.
    expect(rig.llm.chatRequests()[0]!.body.messages.at(-1).content).toContain("[Goal mode]");
    expect(rig.llm.chatRequests()[0]!.body.messages.at(-1).content).toContain("say hi");
    expect(pageErrors(page)).toEqual([]);
  });
});
