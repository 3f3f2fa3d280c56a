// The terminal chat's built-in commands typed in the web UI's prompt box are
// answered, never sent to the model as a prompt: /model, /mode and /effort
// act on the open session, /new and /clear open a new one, /help lists what
// the web UI runs, and a command the web UI cannot show (/cost) says so.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { command, haveChromium, pageErrors, say, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI built-in slash commands: /usr/bin/chromium not found (Debian: chromium)");

describe.skipIf(!haveChromium)("web UI built-in slash commands", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig({ extraProviders: '[[providers]]\nname = "t"\nkind = "openai"\nbase_url = "{{LLM}}"\nmodel = "t-model"\napi_key_env = "SCRIPTED_API_KEY"\n' });
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("/model, /mode, /effort, /help, /cost and /new from the prompt box never reach the model", async () => {
    rig.llm.push({ text: "First answer." }, { text: "Second answer." });
    const page = await rig.open();
    await say(page, "first question");
    await page.getByText("First answer.").waitFor();
    await page.locator("#prompt:not([disabled])").waitFor();
    const first = page.url();
    await page.click("#prompt");
    await page.keyboard.type("/mo");
    const item = page.locator('ul[aria-label="Commands"] li');
    await item.first().waitFor();
    expect(await item.allTextContents()).toEqual(["/model [name] Pick the model (the conversation goes on with it)", "/mode [ask|auto|plan|read-only] Permission mode for the rest of the session"]);
    await page.keyboard.press("Escape");

    await command(page, "/model t");
    await page.getByText("model t from here on (same conversation)").waitFor();
    await command(page, "/mode read-only");
    await page.getByText("mode read-only from here on").waitFor();
    expect(await page.locator("#mode").inputValue()).toBe("read-only");
    await command(page, "/effort low");
    await page.getByText("Reasoning effort low from the next request on.").waitFor();
    await command(page, "/help");
    await page.getByText("/model [name]").waitFor();
    await command(page, "/cost");
    await page.getByText("/cost is a terminal chat command").waitFor();
    expect(rig.llm.chatRequests()).toHaveLength(1);

    await say(page, "second question");
    await page.getByText("Second answer.").waitFor();
    const sent = rig.llm.chatRequests()[1]!.body;
    expect(sent.model).toBe("t-model");
    expect(sent.reasoning_effort).toBe("low");

    await page.locator("#prompt:not([disabled])").waitFor();
    await command(page, "/new");
    // A new session starts as an empty draft: created on the server by its first prompt (issue 27).
    await page.waitForURL((u) => u.href !== first && u.pathname === "/");
    await page.waitForSelector("#empty");
    expect(rig.llm.chatRequests()).toHaveLength(2);
    expect(pageErrors(page)).toEqual([]);
  });
  test("typed /model, /mode and /effort are decided by the server's dispatcher alone (as in the chat): entry/model the endpoint serves switches, no-argument answers list the choices", async () => {
    rig.llm.push({ text: "Answer A." }, { text: "Answer B." });
    const page = await rig.open();
    await say(page, "question A");
    await page.getByText("Answer A.").waitFor();
    await page.locator("#prompt:not([disabled])").waitFor();
    // A model the entry's endpoint serves but the config does not list: the chat's /model takes it, so does the web's.
    await command(page, "/model t/t-served");
    await page.getByText("model t/t-served from here on (same conversation)").waitFor();
    await command(page, "/mode");
    await page.getByText("Permission mode: /mode ask | auto | plan | read-only").waitFor();
    await command(page, "/effort bogus");
    await page.getByText('unknown reasoning effort "bogus"').waitFor();
    await command(page, "/effort");
    await page.getByText("Reasoning effort: /effort").waitFor();
    const asked = rig.llm.chatRequests().length;
    await say(page, "question B");
    await page.getByText("Answer B.").waitFor();
    expect(rig.llm.chatRequests()).toHaveLength(asked + 1);
    expect(rig.llm.chatRequests().at(-1)!.body.model).toBe("t-served");
    expect(pageErrors(page)).toEqual([]);
  });
  test("/rewind N MODE typed in the prompt box runs on the server's dispatcher: the conversation goes back, the model is not asked", async () => {
    rig.llm.push({ text: "Answer one." }, { text: "Answer two." });
    const page = await rig.open();
    await say(page, "question one");
    await page.getByText("Answer one.").waitFor();
    await page.locator("#prompt:not([disabled])").waitFor();
    await say(page, "question two");
    await page.getByText("Answer two.").waitFor();
    await page.locator("#prompt:not([disabled])").waitFor();
    const asked = rig.llm.chatRequests().length;
    await command(page, "/rewind 2 conversation");
    await page.getByText("rewound to before turn 2 (conversation)").waitFor();
    await page.getByText("Answer two.").waitFor({ state: "detached" });
    expect(await page.getByText("Answer one.").count()).toBe(1);
    await command(page, "/rewind");
    await page.getByText("Rewind to before which prompt?: /rewind 1").waitFor();
    expect(rig.llm.chatRequests()).toHaveLength(asked);
    expect(pageErrors(page)).toEqual([]);
  });
});
