// Manual compaction (`/compact`): between turns the old middle becomes a
// model-written summary; the next request carries the summary instead of the
// old messages, with the system prompt and the tool block byte-identical.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import type { EngineEvent } from "../types.ts";
import { collect, engineFor, isCompactionRequest, makeSandbox, providerConfig } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});


test("compact() replaces the old middle with the summary; system prompt and tools stay byte-identical; PreCompact says manual", async () => {
  const sb = makeSandbox();
  writeFileSync(join(sb.workspace, "old.txt"), `${"o".repeat(2000)}\n`);
  const llm = await startScriptedOpenAI([
    { toolCalls: [{ name: "read_file", arguments: { path: "old.txt" } }] },
    { text: "read the old file" },
    { text: "second answer" },
    (req) => (isCompactionRequest(req) ? { text: "Goal: reading. MANUAL-SUMMARY" } : { kind: "error", status: 400, message: "expected a compaction request" }),
    { text: "after compaction" },
  ]);
  const log = join(dirname(sb.workspace), "precompact.jsonl");
  const cfg = providerConfig(llm.url, { context_window: 100_000 });
  cfg.hooks = [{ event: "PreCompact", command: `cat >> '${log}'` }];
  cfg.sandbox = { bash: "off" };
  const engine = engineFor(sb, llm.url, { config: cfg });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  const evs = collect(s);
  expect(await s.submit("read old.txt")).toBe("done");
  expect(await s.submit("and then?")).toBe("done");
  // Far below compact_ratio of the window: only the manual call compacts.
  expect(evs.some((e) => e.type === "compaction")).toBe(false);

  const r = await s.compact!();
  expect(r).not.toBeNull();
  expect(r!.removedMessages).toBeGreaterThanOrEqual(2);
  const ev = evs.find((e) => e.type === "compaction") as Extract<EngineEvent, { type: "compaction" }>;
  expect(ev).toEqual({ type: "compaction", removedMessages: r!.removedMessages, summaryChars: r!.summaryChars, trigger: "manual" });
  expect(s.busy).toBe(false);

  expect(await s.submit("go on")).toBe("done");
  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(5);
  expect(isCompactionRequest(reqs[3]!)).toBe(true);
  const before = reqs[2]!.body;
  const after = reqs[4]!.body;
  // The system prompt and the tool block: byte-identical.
  expect(JSON.stringify(after.messages[0])).toBe(JSON.stringify(before.messages[0]));
  expect(after.messages[0].role).toBe("system");
  expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
  const text = JSON.stringify(after.messages);
  expect(text).toContain("MANUAL-SUMMARY");
  expect(text).toContain("<compaction-summary>");
  expect(text).not.toContain("oooooooooo"); // the old tool output is gone
  expect(after.messages.at(-1)).toMatchObject({ role: "user", content: "go on" });
  expect(after.messages.length).toBeLessThan(before.messages.length + 2);

  // PreCompact ran once, with the manual trigger.
  if (existsSync(log)) {
    const got = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(got.map((p) => [p.hook_event_name, p.trigger])).toEqual([["PreCompact", "manual"]]);
  } else throw new Error("the PreCompact hook did not run");

  // The log replays to the compacted conversation.
  await s.close();
  const again = await engine.resumeSession(s.id);
  cleanups.push(() => again.close());
  llm.push({ text: "resumed" });
  expect(await again.submit("more")).toBe("done");
  const resumed = llm.chatRequests()[5]!.body.messages;
  expect(JSON.stringify(resumed.slice(0, after.messages.length))).toBe(JSON.stringify(after.messages));
});

test("compact() refuses while a turn runs, and returns null when there is nothing to summarize", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ text: "slow", delayMs: 400 }]);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  expect(await s.compact!()).toBeNull(); // an empty conversation
  const turn = s.submit("hi");
  await expect(s.compact!()).rejects.toThrow("cannot compact while a turn is running");
  expect(await turn).toBe("done");
  // One short exchange: nothing worth summarizing, and no request was made for it.
  expect(await s.compact!()).toBeNull();
  expect(llm.chatRequests()).toHaveLength(1);
});
