// The web UI's prompt box in real headless chromium: `/compact` and `/mcp`
// run on the open session instead of going to the model, and `#note` asks
// for confirmation (ask mode) and then lands in the project's AGENTS.md.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { command, haveChromium, pageErrors, say, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI /compact, /mcp, #note: /usr/bin/chromium not found (Debian: chromium)");

const isCompactionRequest = (req: { body: any }) => String(req.body.messages.at(-1)?.content).includes("<compaction-request>");

describe.skipIf(!haveChromium)("web UI session commands and #note", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("/compact, /mcp and #note from the prompt box", async () => {
    rig.llm.push({ text: "First answer." }, { text: "Second answer." }, (req) => (isCompactionRequest(req) ? { text: "UI-SUMMARY" } : { kind: "error", status: 400, message: "expected a compaction request" }));
    const page = await rig.open();
    await say(page, "first question");
    await page.getByText("First answer.").waitFor();
    await say(page, "second question");
    await page.getByText("Second answer.").waitFor();
    await page.locator("#prompt:not([disabled])").waitFor();
    await command(page, "/compact");
    await page.getByText(/Context compacted: \d+ messages summarised\./).waitFor();
    expect(rig.llm.chatRequests()).toHaveLength(3);
    expect(isCompactionRequest(rig.llm.chatRequests()[2]!)).toBe(true);

    await command(page, "/mcp");
    await page.getByText("no MCP servers").waitFor();
    expect(rig.llm.chatRequests()).toHaveLength(3);

    // Ask mode: the browser asks first; dismissing writes nothing, accepting appends.
    page.once("dialog", (d) => void d.dismiss());
    await say(page, "#keep commits small");
    await page.getByText("Note not added.").waitFor();
    expect(existsSync(join(rig.workspace, "AGENTS.md"))).toBe(false);
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.accept();
    });
    await say(page, "#keep commits small");
    await page.getByText("noted in AGENTS.md (new file)").waitFor();
    expect(asked).toContain("keep commits small");
    expect(readFileSync(join(rig.workspace, "AGENTS.md"), "utf8")).toBe("- keep commits small\n");
    expect(rig.llm.chatRequests()).toHaveLength(3);
    expect(pageErrors(page)).toEqual([]);
  });
});
