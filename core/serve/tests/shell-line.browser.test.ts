// `!command` in the web UI's composer (real `reasonix serve`, scripted model,
// headless chromium): the server recognises the shell line (core/protocol/
// shell-line.ts), asks through the approval card when the rules ask, shows a
// bash card marked as the user's, and the output reaches the model with the
// next message; a reload shows the card again (it is in the session's log);
// while a turn runs the line is refused with a clear message.
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { haveChromium, pageErrors, say, shot, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web shell line tests: /usr/bin/chromium is not installed");

describe.skipIf(!haveChromium)("web UI: !command", () => {
  let rig: UiRig;
  beforeEach(async () => {
    rig = await startRig();
  });
  afterEach(async () => {
    await rig?.close();
  });

  test("!ls asks (ask mode), shows a bash card with its output, the output reaches the next request, and a reload shows the card", async () => {
    writeFileSync(join(rig.workspace, "marker-8812.txt"), "x\n");
    rig.llm.push({ text: "I see the marker." });
    const page = await rig.open();
    // The composer says what Enter will do (the server decides: core/protocol/shell-line.ts).
    await page.fill("#prompt", "!ls");
    await page.locator("#composer-hint >> text=Shell line: Enter runs it in the shell").waitFor();
    await page.press("#prompt", "Enter");
    const card = page.locator(".tool.user-shell");
    await card.locator(".approval").waitFor();
    expect(await card.locator(".tool-name").textContent()).toBe("bash");
    await card.getByRole("button", { name: "Allow once" }).click();
    await page.locator(".tool.user-shell.status-ok >> text=marker-8812.txt").waitFor();
    await shot(page, "shell-line-card");
    // The line went to the shell, not to the model.
    expect(rig.llm.chatRequests()).toHaveLength(0);
    await say(page, "what is in the folder?");
    await page.waitForSelector(".msg.assistant >> text=I see the marker.");
    const reqs = rig.llm.chatRequests();
    expect(reqs).toHaveLength(1);
    const users = reqs[0]!.body.messages.filter((m: { role: string }) => m.role === "user");
    const last = users.at(-1)!.content as string;
    expect(last).toContain("$ ls\n");
    expect(last).toContain("marker-8812.txt");
    expect(last.endsWith("what is in the folder?")).toBe(true);

    await page.reload();
    await page.waitForSelector("#conn.websocket, #conn.sse");
    await page.locator(".tool.user-shell.status-ok >> text=marker-8812.txt").waitFor();
    await page.getByText("I see the marker.").waitFor();
    expect(await page.locator(".tool.user-shell").count()).toBe(1);
    expect(pageErrors(page)).toEqual([]);
  });

  test("a shell line sent while a turn runs is refused with a clear message and never runs; the turn goes on", async () => {
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    rig.llm.push({ text: "slow answer", until: held });
    const page = await rig.open();
    await say(page, "take your time");
    await page.waitForSelector(".msg.user >> text=take your time");
    await say(page, "!touch never-9.txt");
    await page.getByText("a turn is running: run the shell line when it ends").waitFor();
    release();
    await page.waitForSelector(".msg.assistant >> text=slow answer");
    expect(existsSync(join(rig.workspace, "never-9.txt"))).toBe(false);
    expect(await page.locator(".tool.user-shell").count()).toBe(0);
    expect(rig.llm.chatRequests()).toHaveLength(1);
    expect(pageErrors(page)).toEqual([]);
  });
});
