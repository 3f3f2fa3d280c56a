// Headless `reasonix run` and the `ask` tool (issue 29): no one can answer,
// so the run stops at once with exit 4 ("needs the user") and names the
// question — in text on stderr, as `error` in --output-format json — and the
// model is not called again. Also in yolo mode: a question is no permission.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli } from "./run-helpers.ts";

setDefaultTimeout(120_000);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ASK = { name: "ask", arguments: { question: "Deploy to staging or production?", options: [{ label: "staging" }, { label: "production" }] } };

async function setup() {
  const llm = await startScriptedOpenAI([{ toolCalls: [ASK] }, { text: "never sent" }]);
  const ce = makeCliEnv(llm.url);
  cleanups.push(() => llm.close(), () => ce.cleanup());
  return { llm, ce };
}

test("text output: exit 4 and the question on stderr, the model asked once", async () => {
  const { llm, ce } = await setup();
  const r = await runCli(ce, ["run", "--permission-mode", "yolo", "deploy it"]);
  expect(r.code).toBe(4);
  expect(r.stderr).toContain("stopped:");
  expect(r.stderr).toContain('"Deploy to staging or production?"');
  expect(llm.chatRequests()).toHaveLength(1);
});

test("json output: exit_code 4, reason needs_user, the question in error", async () => {
  const { ce } = await setup();
  const r = await runCli(ce, ["run", "--output-format", "json", "deploy it"]);
  expect(r.code).toBe(4);
  const out = JSON.parse(r.stdout);
  expect(out).toMatchObject({ reason: "needs_user", exit_code: 4 });
  expect(out.error).toContain("Deploy to staging or production?");
});

test("--goal: the goal pauses as needs_user and the run exits 4 naming the question", async () => {
  const { llm, ce } = await setup();
  const r = await runCli(ce, ["run", "--output-format", "json", "--goal", "deploy it"]);
  expect(r.code).toBe(4);
  const out = JSON.parse(r.stdout);
  expect(out.goal).toMatchObject({ status: "paused", pauseCode: "needs_user" });
  expect(out.error).toContain("Deploy to staging or production?");
  expect(llm.chatRequests()).toHaveLength(1);
});
