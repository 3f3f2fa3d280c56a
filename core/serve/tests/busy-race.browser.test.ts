// The web UI's "a turn is running" state (Cancel button, Steer instead of
// Send) against slow and reordered responses. The browser learns of a turn's
// start and end from live notices, and also reads the state in snapshots
// (the sessions list, a session's resume); a snapshot asked for before a
// notice but delivered after it must not undo it, and a message sent while
// the previous prompt is still on its way must keep its order.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page, Route } from "playwright-core";
import { waitFor } from "./helpers.ts";
import { haveChromium, nextResponse, pageErrors, say, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI busy state under slow responses: /usr/bin/chromium not found (Debian's chromium package; .ci/run installs it)");

/**
 * Hold the first matching `method` response whose body says a turn is running
 * (`"busy":true`): fetched from the server at once, delivered when the test
 * calls release(). `mark` may rewrite the held body, so that the page shows
 * when it has applied it.
 */
async function deliverLate(page: Page, method: string, pattern: RegExp, mark: (body: string) => string = (b) => b, holdLater = false): Promise<{ held: () => number; release: () => void; releaseLater: () => void }> {
  let held = 0;
  const { promise: gate, resolve: release } = Promise.withResolvers<void>();
  // With holdLater, requests after the held one wait until releaseLater(): nothing fresher overtakes it.
  const { promise: laterGate, resolve: releaseLater } = Promise.withResolvers<void>();
  if (!holdLater) releaseLater();
  const handler = async (route: Route) => {
    if (route.request().method() !== method) return route.continue();
    if (held > 0) return laterGate.then(() => route.continue());
    const response = await route.fetch();
    const body = await response.text();
    if (held === 0 && body.includes('"busy":true')) {
      held++;
      await gate;
      return route.fulfill({ response, body: mark(body) });
    }
    await route.fulfill({ response, body });
  };
  await page.route(pattern, handler);
  return { held: () => held, release, releaseLater };
}

const idle = (page: Page) => page.waitForFunction(() => (document.querySelector("#cancel") as HTMLElement).hidden && !(document.querySelector("#send") as HTMLButtonElement).disabled, undefined, { timeout: 15_000 });

describe.skipIf(!haveChromium)("web UI busy state under slow responses", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("a second message sent while the first is still on its way steers that turn; order kept", async () => {
    const page = await rig.open();
    await page.route("**/api/sessions/*/prompt", async (route) => {
      await Bun.sleep(1000);
      await route.continue();
    });
    const before = rig.llm.chatRequests().length;
    // The first answer waits until the second message has been accepted as steering.
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    rig.llm.push({ text: "a first draft", until: held }, { text: "the revised answer" });
    await say(page, "first words");
    await page.waitForSelector("#cancel:not([hidden])");
    const steered = nextResponse(page, "POST", /\/steer$/);
    await say(page, "second words");
    expect(await (await steered).json()).toEqual({ disposition: "steer_accepted" });
    release();
    await page.waitForSelector(".msg.assistant >> text=the revised answer", { timeout: 20_000 });
    expect(rig.llm.chatRequests()[before]!.body.messages.at(-1)).toMatchObject({ role: "user", content: "first words" });
    expect(JSON.stringify(rig.llm.chatRequests()[before + 1]!.body.messages.at(-1))).toContain("second words");
    expect(await page.locator(".system >> text=Not sent").count()).toBe(0);
    await idle(page);
    expect(pageErrors(page)).toEqual([]);
  });

  test("a sessions list read during the turn but delivered after its end does not bring the busy state back", async () => {
    const page = await rig.open();
    // The list the UI reloads when the turn starts says "busy"; it arrives after the turn's end.
    // The held list renames the busy session, so the sidebar shows when the page has applied it.
    const marker = "late list applied";
    const late = await deliverLate(page, "GET", /\/api\/sessions$/, (body) => {
      const data = JSON.parse(body) as { sessions: { busy?: boolean; title?: string }[] };
      for (const row of data.sessions) if (row.busy) row.title = marker;
      return JSON.stringify(data);
    }, true);
    rig.llm.push({ text: "quick answer", delayMs: 300 });
    await say(page, "be quick");
    await page.waitForSelector(".msg.assistant >> text=quick answer");
    await page.waitForFunction(() => (document.querySelector("#cancel") as HTMLElement).hidden);
    expect(late.held()).toBe(1);
    late.release();
    // The busy flag and the title come from the same delivered list, applied in one render; fresher
    // lists (the server's own notices after the turn) wait until it is on screen, then come.
    await page.waitForSelector(`#session-list li .title >> text=${marker}`, { timeout: 15_000 });
    // The stale list is on screen and nothing fresher has come: it must not have made anything busy.
    expect(await page.locator("#session-list li.busy").count()).toBe(0);
    expect(await page.locator("#cancel").isHidden()).toBe(true);
    late.releaseLater();
    await idle(page);
    expect(await page.locator("#session-list li.busy").count()).toBe(0);
    // And the next Enter is a prompt again, not steering.
    rig.llm.push({ text: "second answer" });
    await say(page, "again");
    await page.waitForSelector(".msg.assistant >> text=second answer");
    await idle(page);
  });

  test("a session opened mid-turn whose snapshot arrives after the turn's end is not left busy", async () => {
    const first = await rig.open();
    rig.llm.push({ text: "started elsewhere" });
    await say(first, "make a session");
    await first.waitForSelector(".msg.assistant >> text=started elsewhere");
    await idle(first);
    const path = new URL(first.url()).pathname;
    const id = decodeURIComponent(path.split("/").pop()!);

    // A second tab opens the session while its next turn runs; the resume
    // snapshot (busy) reaches the tab only after the turn has ended.
    const second = await rig.open("/");
    const late = await deliverLate(second, "POST", /\/api\/sessions\/[^/]+\/resume$/);
    rig.llm.push({ text: "the second turn", delayMs: 60_000 });
    await say(first, "another turn");
    await first.waitForSelector("#cancel:not([hidden])");
    await second.goto(`${rig.s.base}/sessions/${encodeURIComponent(id)}`);
    await waitFor("the resume snapshot taken mid-turn", () => late.held() === 1, 15_000);
    await first.keyboard.press("Escape");
    await first.waitForSelector(".system >> text=Cancelled.");
    await idle(first);
    late.release();
    await second.waitForSelector(".system >> text=Cancelled.", { timeout: 15_000 });
    await idle(second);
  });
});
