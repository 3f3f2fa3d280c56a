// The conformance script (cli/tests/conformance.test.ts) through the web UI
// itself: typed in the prompt box and answered with its buttons in Chromium —
// start, a prompt that needs an approval, /model, /mode, /effort, /help,
// steering a running turn, cancelling one, a write the new mode refuses and
// /rewind. The session must end as the chat's, serve API's and ACP's do: the
// same requests to the model and the same folded conversation.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { EngineEvent } from "../../protocol/events.ts";
import { foldTranscript } from "../../protocol/fold.ts";
import { brief } from "../../protocol/tests/brief.ts";
import { pollFor } from "../../testing/fresh-wait.ts";
import { command, haveChromium, nextResponse, pageErrors, say, sessionOf, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(180_000);
if (!haveChromium) console.warn("SKIPPED web UI conformance script: /usr/bin/chromium not found (Debian: chromium)");

const idle = (page: Page) => page.waitForFunction(() => (document.querySelector("#cancel") as HTMLElement).hidden && !(document.querySelector("#send") as HTMLButtonElement).disabled, undefined, { timeout: 30_000 });

describe.skipIf(!haveChromium)("web UI: the conformance script", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig({ extraProviders: '[[providers]]\nname = "other"\nkind = "openai"\nbase_url = "{{LLM}}"\nmodel = "other-model"\napi_key_env = "SCRIPTED_API_KEY"\n' });
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("start, approval, model, mode, effort, /help, steer, cancel, refused write, rewind: the same session as every other front end", async () => {
    const { llm } = rig;
    const page = await rig.open();
    llm.push({ toolCalls: [{ id: "call_a", name: "write_file", arguments: { path: "a.txt", content: "a\n" } }] }, { text: "wrote a.txt" });
    await say(page, "write a.txt");
    await page.getByRole("button", { name: "Allow once" }).click();
    await page.locator(".msg.assistant >> text=wrote a.txt").waitFor();
    await idle(page);
    const id = sessionOf(page);

    const before = llm.chatRequests().length;
    await command(page, "/model other");
    await page.getByText("model other from here on (same conversation)").waitFor();
    await command(page, "/mode read-only");
    await page.getByText("permission mode read-only from here on").waitFor();
    await command(page, "/effort low");
    await page.getByText("Reasoning effort low from the next request on.").waitFor();
    await command(page, "/help");
    await page.getByText("Commands the web UI runs:").waitFor();
    expect(llm.chatRequests().length).toBe(before);

    // Steer: text sent while the model holds its step reaches the next request.
    const gate = Promise.withResolvers<void>();
    llm.push({ toolCalls: [{ id: "call_r", name: "read_file", arguments: { path: "a.txt" } }], until: gate.promise }, { text: "a.txt says a" });
    const n = llm.chatRequests().length;
    await say(page, "read a.txt");
    await pollFor("the held request", () => llm.chatRequests().length, (k) => k > n);
    const steered = nextResponse(page, "POST", /\/steer$/);
    await say(page, "mention its size");
    expect(await (await steered).json()).toEqual({ disposition: "steer_accepted" });
    gate.resolve();
    await page.locator(".msg.assistant >> text=a.txt says a").waitFor();
    await idle(page);
    expect(JSON.stringify(llm.chatRequests()[n + 1]!.body.messages.at(-1))).toContain("mention its size");

    // Cancel the held step with the stop button.
    const hold = Promise.withResolvers<void>();
    llm.push({ text: "never shown", until: hold.promise });
    const m = llm.chatRequests().length;
    await say(page, "a slow one");
    await pollFor("the held request", () => llm.chatRequests().length, (k) => k > m);
    await page.click("#cancel");
    await idle(page);
    hold.resolve();

    // Read-only refuses the write without asking.
    llm.push({ toolCalls: [{ id: "call_b", name: "write_file", arguments: { path: "b.txt", content: "b\n" } }] });
    await say(page, "write b.txt");
    await page.locator(".system >> text=Stopped: permission denied.").waitFor();
    await idle(page);
    expect(await page.getByRole("button", { name: "Allow once" }).count()).toBe(0);

    await command(page, "/rewind 2 conversation");
    await page.getByText("rewound to before turn 2 (conversation)").waitFor();

    const other = { model: "other-model", effort: "low" };
    expect(llm.chatRequests().map((r) => ({ model: r.body.model, ...(r.body.reasoning_effort ? { effort: r.body.reasoning_effort } : {}) }))).toEqual([{ model: "scripted-model" }, { model: "scripted-model" }, other, other, other, other]);
    expect(readFileSync(join(rig.workspace, "a.txt"), "utf8")).toBe("a\n");
    expect(existsSync(join(rig.workspace, "b.txt"))).toBe(false);
    const r = await fetch(`${rig.s.base}/api/sessions/${id}/history`, { headers: { authorization: `Bearer ${rig.token}` } });
    const events = ((await r.json()) as { events: EngineEvent[] }).events;
    // What cli/tests/conformance.test.ts's WROTE_A says every front end leaves: the first turn only.
    expect(foldTranscript(events).blocks.map(brief)).toEqual(["prompt 1: write a.txt", "tool call_a write_file ok: Created a.txt (1 line, 2 bytes)", 'answer: "wrote a.txt"', "end 1 done"]);
    expect(pageErrors(page)).toEqual([]);
  });
});
