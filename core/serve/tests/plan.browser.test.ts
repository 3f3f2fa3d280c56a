// The planner's plan in the web UI, in real headless chromium: a plan-first
// request shows the plan (rendered Markdown) before the executor's answer; a
// plan that waits for approval is approved from the browser and the executor
// then runs; a reload shows the plans again (history replay).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { haveChromium, pageErrors, say, shot, startRig, type UiRig } from "./ui-helpers.ts";

setDefaultTimeout(120_000);
if (!haveChromium) console.warn("SKIPPED web UI plan rendering: /usr/bin/chromium not found (Debian: chromium)");

const plan = (summary: string) => ({
  toolCalls: [
    {
      name: "submit_plan",
      arguments: { summary, steps: ["look at the workspace", "write hello.txt"], verified_touchpoints: [], candidate_touchpoints: ["hello.txt"], non_goals: ["other files"], risks: [], acceptance_criteria: ["hello.txt exists"], verification_commands: ["test -f hello.txt"] },
    },
  ],
});

describe.skipIf(!haveChromium)("web UI planner", () => {
  let rig: UiRig;
  beforeAll(async () => {
    // The planner is another provider entry on the same scripted server: its steps come first in the queue.
    rig = await startRig({ extraProviders: '[[providers]]\nname = "planner"\nkind = "openai"\nbase_url = "{{LLM}}"\nmodel = "plan-model"\napi_key_env = "SCRIPTED_API_KEY"\n\n[agent]\nplanner_model = "planner"\n' });
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("plan first, then plan for approval answered from the browser; a reload shows both plans", async () => {
    rig.llm.push(plan("First plan: say hello."), { text: "Executed the first plan." });
    const page = await rig.open();
    await say(page, "plan first, then say hello");
    await page.getByText("Executed the first plan.").waitFor();
    const transcript = page.locator("#transcript, main").first();
    // The plan is rendered Markdown: its heading, its summary and its step list, before the answer.
    await page.getByRole("heading", { name: "Plan" }).first().waitFor();
    await page.getByText("First plan: say hello.").waitFor();
    expect(await page.locator("li", { hasText: "write hello.txt" }).count()).toBeGreaterThan(0);
    const all = (await transcript.textContent()) ?? "";
    expect(all.indexOf("First plan: say hello.")).toBeLessThan(all.indexOf("Executed the first plan."));
    const models = rig.llm.chatRequests().map((r) => r.body.model);
    expect(models).toEqual(["plan-model", "scripted-model"]);

    rig.llm.push(plan("Second plan: wait for approval."), { text: "Executed the approved plan." });
    await say(page, "plan it and wait for my approval before implementing: say hello again");
    const allow = page.getByRole("button", { name: "Allow once" });
    await allow.waitFor();
    expect(await page.locator(".tool .approval .summary").last().textContent()).toContain("plan: Second plan: wait for approval.");
    // Nothing ran yet: the executor waits for the answer.
    expect(rig.llm.chatRequests()).toHaveLength(3);
    await page.getByText("Second plan: wait for approval.").first().waitFor();
    await shot(page, "plan-approval");
    await allow.click();
    await page.getByText("Executed the approved plan.").waitFor();
    expect(rig.llm.chatRequests().map((r) => r.body.model).slice(2)).toEqual(["plan-model", "scripted-model"]);

    await page.reload();
    await page.waitForSelector("#conn.websocket, #conn.sse");
    await page.getByText("Executed the approved plan.").waitFor();
    expect(await page.getByText("First plan: say hello.").count()).toBeGreaterThan(0);
    expect(await page.getByText("Second plan: wait for approval.").count()).toBeGreaterThan(0);
    expect(pageErrors(page)).toEqual([]);
  });
});
