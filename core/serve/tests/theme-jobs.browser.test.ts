// The web UI (compiled binary, chromium) follows the one theme setting the
// terminal chat's /theme saves ([ui] theme, theme_style): the saved dark mode
// and accent on load in a browser that prefers light; under auto, the
// system's dark mode, also when it changes; /theme typed in the prompt box
// saves and applies. And a background job the agent starts shows above the
// composer, with its list, until it is stopped.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { builtDist } from "../../../scripts/lib/built-dist.ts";
import { CHROMIUM, command, haveChromium, pageErrors, say, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(180_000);
if (!haveChromium) console.warn(`SKIPPED web UI theme and jobs: ${CHROMIUM} not found (apt-get install chromium)`);

const look = (page: Page) =>
  page.evaluate(() => ({ theme: document.documentElement.dataset.theme, style: document.documentElement.dataset.style, accent: getComputedStyle(document.documentElement).getPropertyValue("--accent").trim() }));

describe.skipIf(!haveChromium)("web UI: theme and background jobs (compiled binary)", () => {
  let rig: UiRig;
  beforeAll(async () => {
    rig = await startRig({ bin: (await builtDist()).binary });
  }, 600_000);
  afterAll(async () => {
    await rig?.close();
  });

  test("the saved [ui] theme and accent apply on load; auto follows the system's dark mode; /theme in the prompt box saves and applies", async () => {
    // As the terminal chat's `/theme dark` and `/theme forest` save them.
    appendFileSync(join(rig.home, "config.toml"), '\n[ui]\ntheme = "dark"\ntheme_style = "forest"\n');
    const page = await rig.open(); // a browser that prefers light
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark" && document.documentElement.dataset.style === "forest");
    expect(await look(page)).toEqual({ theme: "dark", style: "forest", accent: "#7fd49a" });

    // /theme auto (needs a session: the first message opens one), then the system's preference rules.
    rig.llm.push({ text: "hello back" });
    await say(page, "hello");
    await page.waitForSelector(".msg >> text=hello back");
    await command(page, "/theme auto");
    await page.waitForFunction(() => document.documentElement.dataset.theme === "light");
    expect(readFileSync(join(rig.home, "config.toml"), "utf8")).toMatch(/\[ui\][^[]*theme = "auto"/);
    await page.emulateMedia({ colorScheme: "dark" });
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    await page.emulateMedia({ colorScheme: "light" });
    await page.waitForFunction(() => document.documentElement.dataset.theme === "light");

    await command(page, "/theme rose");
    await page.waitForFunction(() => document.documentElement.dataset.style === "rose");
    expect((await look(page)).accent).toBe("#a3306b");
    expect(readFileSync(join(rig.home, "config.toml"), "utf8")).toMatch(/\[ui\][^[]*theme_style = "rose"/);
    // A fresh load of the page (nothing remembered in this browser) shows the saved setting.
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await page.waitForSelector("#prompt");
    await page.waitForFunction(() => document.documentElement.dataset.style === "rose" && document.documentElement.dataset.theme === "light");
    expect(pageErrors(page)).toEqual([]);
  });

  test("a background job the agent starts shows above the composer, listed on a click, and goes once it is stopped", async () => {
    rig.llm.push(
      { toolCalls: [{ name: "bash", arguments: { command: "echo up; while true; do sleep 0.2; done # web-job", run_in_background: true } }] },
      { text: "job started" },
      { toolCalls: [{ name: "bash_kill", arguments: { job_id: "job-1" } }] },
      { text: "job stopped" },
    );
    const page = await rig.open();
    await say(page, "start a job");
    await page.getByRole("button", { name: "Allow once" }).click();
    await page.waitForSelector(".msg >> text=job started");
    await page.waitForSelector("#jobs-toggle >> text=1 background job running");
    await page.click("#jobs-toggle");
    await page.waitForSelector('#jobs-list [data-job="job-1"][data-status="running"]');
    expect(await page.textContent("#jobs-list")).toContain("web-job");
    await say(page, "stop it");
    await page.waitForSelector(".msg >> text=job stopped");
    await page.waitForSelector('#jobs-list [data-job="job-1"]:not([data-status="running"])');
    await page.waitForSelector("#jobs-toggle >> text=0 background jobs running · 1 ended");
    expect(pageErrors(page)).toEqual([]);
  });
});
