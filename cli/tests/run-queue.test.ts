// `reasonix run --resume ID "/queue …"`: a session's queue shown and changed
// from a script (the one dispatcher), a clean exit that leaves it marked as
// such, and a refused argument exiting 1 with the usage.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { PromptQueue } from "../../core/host/queue.ts";
import { readQueueFile } from "../../core/sessions/queue-file.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

setDefaultTimeout(120_000);
let llm: ScriptedServer;
let ce: CliEnv;
beforeAll(async () => {
  llm = await startScriptedOpenAI([{ text: "hello back" }]);
  ce = makeCliEnv(llm.url);
});
afterAll(async () => {
  ce?.cleanup();
  await llm?.close();
});

test("list, delete and a bad argument on a resumed session's queue", async () => {
  const first = await runCli(ce, ["run", "--output-format", "json", "hello"]);
  expect(first.code).toBe(0);
  const id = JSON.parse(first.stdout).session_id as string;
  const file = join(ce.home, "sessions", id, "queue.json");
  const q = new PromptQueue(file);
  q.add("later one");
  q.add("later two");

  const list = await runCli(ce, ["run", "--resume", id, "/queue list"]);
  expect([list.code, list.stderr]).toEqual([0, ""]);
  expect(list.stdout).toContain("  1. later one\n  2. later two");
  expect(list.stdout).toContain("paused: kept from the last time this session was open");

  const del = await runCli(ce, ["run", "--resume", id, "/queue delete 1"]);
  expect(del.code).toBe(0);
  expect(del.stdout).toContain("deleted 1: later one");
  const left = readQueueFile(file)!;
  expect([left.items.map((i) => i.text), left.clean]).toEqual([["later two"], true]);

  const bad = await runCli(ce, ["run", "--resume", id, "/queue move 1"]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("usage: /queue move N M");
  // Nothing of this reached the model.
  expect(llm.chatRequests()).toHaveLength(1);
});
