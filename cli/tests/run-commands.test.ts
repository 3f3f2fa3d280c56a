// `reasonix run "/name args"` expands custom commands and skills headless,
// against the scripted model; project commands follow workspace trust.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { put } from "../../core/commands/tests/helpers.ts";

let llm: ScriptedServer;
let ce: CliEnv;
afterEach(async () => {
  await llm?.close();
  ce?.cleanup();
});

test('reasonix run "/review auth" sends the expanded template to the provider; @file attaches the file', async () => {
  llm = await startScriptedOpenAI([{ text: "reviewed" }, { text: "read" }]);
  ce = makeCliEnv(llm.url);
  put(join(ce.home, "commands/review.md"), "---\ndescription: review an area\n---\nReview the $1 module. Focus: $ARGUMENTS\n");
  put(join(ce.workspace, "src/auth.ts"), "export const ok = 1;\n");
  const r = await runCli(ce, ["run", "/review auth tokens"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("reviewed");
  const last = (i: number) => llm.chatRequests()[i]!.body.messages.at(-1).content;
  expect(last(0)).toBe("Review the auth module. Focus: auth tokens\n");
  const r2 = await runCli(ce, ["run", "--output-format", "json", "explain @src/auth.ts"]);
  expect(r2.code).toBe(0);
  expect(last(1)).toContain('<file path="src/auth.ts" lines="1-1">\n   1\texport const ok = 1;\n</file>');
});

test("an untrusted project command fails the run (exit 1) naming the file; --trust-project and `reasonix trust --yes` let it run", async () => {
  llm = await startScriptedOpenAI([{ text: "shipped" }, { text: "shipped again" }]);
  ce = makeCliEnv(llm.url);
  put(join(ce.workspace, ".reasonix/commands/ship.md"), "Ship version $1\n");
  const denied = await runCli(ce, ["run", "/ship 2.0"]);
  expect(denied.code).toBe(1);
  expect(denied.stderr).toContain(`/ship (${join(ce.workspace, ".reasonix/commands/ship.md")}) not loaded: workspace not trusted (reasonix trust)`);
  expect(llm.chatRequests()).toHaveLength(0);

  const once = await runCli(ce, ["run", "--trust-project", "/ship 2.0"]);
  expect(once.code).toBe(0);
  expect(llm.chatRequests()[0]!.body.messages.at(-1).content).toBe("Ship version 2.0\n");

  expect((await runCli(ce, ["trust", "--yes"])).code).toBe(0);
  const trusted = await runCli(ce, ["run", "/ship 2.1"]);
  expect(trusted.code).toBe(0);
  expect(llm.chatRequests()[1]!.body.messages.at(-1).content).toBe("Ship version 2.1\n");
});
