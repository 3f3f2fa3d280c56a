// The model's `ask` in the web UI (real `reasonix serve`, scripted model,
// headless chromium): the question card in the tool card never takes the
// keyboard, survives a reload while it waits, is answered with a radio
// button, or with checkboxes and an own answer, or dismissed; an answer that
// does not fit is refused in the card; the model gets the answer as the
// tool result, with the same tool block as before the question.
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { haveChromium, pageErrors, say, shot, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web ask tests: /usr/bin/chromium is not installed");

const OPTIONS = [{ label: "Postgres", description: "the server one" }, { label: "SQLite" }, { label: "MySQL" }];
const toolResult = (body: any): string => body.messages.findLast((m: any) => m.role === "tool")?.content;

describe.skipIf(!haveChromium)("web UI: the ask card", () => {
  let rig: UiRig;
  beforeEach(async () => {
    rig = await startRig();
  });
  afterEach(async () => {
    await rig?.close();
  });

  test("one answer: the card keeps no focus, survives a reload, a radio button and Answer send it", async () => {
    rig.llm.push({ toolCalls: [{ name: "ask", arguments: { question: "Which database should the app use?", options: OPTIONS } }] }, { text: "Going with SQLite." });
    const page = await rig.open();
    await page.focus("#prompt");
    await say(page, "set up the app");
    const card = page.locator("form.question");
    await card.waitFor();
    expect(await card.locator("legend").textContent()).toBe("Which database should the app use?");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("prompt");
    await shot(page, "ask-card");
    await page.reload();
    await page.waitForSelector("#conn.websocket, #conn.sse");
    await card.waitFor();
    await card.getByLabel("SQLite").check();
    await card.getByRole("button", { name: "Answer" }).click();
    await page.getByText("Going with SQLite.").waitFor();
    expect(await page.locator("form.question").count()).toBe(0);
    const [first, second] = rig.llm.chatRequests();
    expect(toolResult(second!.body)).toBe("The user chose: SQLite");
    expect(JSON.stringify(second!.body.tools)).toBe(JSON.stringify(first!.body.tools));
    expect(pageErrors(page)).toEqual([]);
  });

  test("several answers and an own one; nothing picked is refused in the card; a second question dismissed", async () => {
    rig.llm.push(
      { toolCalls: [{ name: "ask", arguments: { question: "Which stores?", options: OPTIONS, multi_select: true, allow_text: true } }] },
      { text: "Both, plus redis." },
      { toolCalls: [{ name: "ask", arguments: { question: "Deploy now?", options: [{ label: "yes" }, { label: "no" }] } }] },
      { text: "Not deploying." },
    );
    const page = await rig.open();
    await say(page, "set up storage");
    const card = page.locator("form.question");
    await card.waitFor();
    await card.getByRole("button", { name: "Answer" }).click();
    await card.getByRole("alert").waitFor();
    expect(await card.getByRole("alert").textContent()).toContain("pick an option or write an answer");
    expect(rig.llm.chatRequests()).toHaveLength(1);
    await card.getByLabel("Postgres").check();
    await card.getByLabel("MySQL").check();
    await card.getByLabel("Other").fill("and redis");
    await card.getByRole("button", { name: "Answer" }).click();
    await page.getByText("Both, plus redis.").waitFor();
    expect(toolResult(rig.llm.chatRequests()[1]!.body)).toBe("The user chose: Postgres; MySQL\nThe user wrote: and redis");

    await say(page, "deploy it");
    await page.locator("form.question legend", { hasText: "Deploy now?" }).waitFor();
    await page.locator("form.question").getByRole("button", { name: "Dismiss" }).click();
    await page.getByText("Not deploying.").waitFor();
    expect(toolResult(rig.llm.chatRequests()[3]!.body)).toBe("The user dismissed the question without answering.");
    expect(pageErrors(page)).toEqual([]);
  });
});
