// The model's `ask` in the chat's line mode (piped input): the question and
// its numbered options are printed; when the input has ended nobody can
// answer, so it is dismissed at once and the turn goes on — never a hang.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli } from "./run-helpers.ts";

setDefaultTimeout(120_000);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("piped input that has ended: the question is shown, then dismissed; the turn finishes", async () => {
  const llm = await startScriptedOpenAI([
    { toolCalls: [{ name: "ask", arguments: { question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] } }] },
    { text: "Picked one myself." },
  ]);
  const ce = makeCliEnv(llm.url);
  cleanups.push(() => llm.close(), () => ce.cleanup());
  const r = await runCli(ce, ["chat", "--line-mode"], { stdin: "set up the app\n" });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("? Which database?");
  // Dismissed when it arrives after the input ended, or at the end of the input when it came first: either way it says so.
  expect(r.stdout).toContain("> dismissed");
  expect(r.stdout).toContain("Picked one myself.");
  expect(llm.chatRequests()[1]!.body.messages.findLast((m: any) => m.role === "tool").content).toBe("The user dismissed the question without answering.");
});
