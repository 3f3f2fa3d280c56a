// What a front end that (re)connects mid-turn needs from history(): the
// answer streaming so far and the approvals still waiting; a cancelled
// answer is kept; writer approvals and results carry unified diffs.
import { afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import type { EngineEvent } from "../types.ts";
import { engineFor, makeSandbox, until } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("history() mid-stream holds the streamed text; a cancelled answer is committed and survives a resume", async () => {
  const sb = makeSandbox();
  const text = "Sentence number 1. Sentence number 2. Sentence number 3. ";
  const llm = await startScriptedOpenAI([{ text, chunkSize: 10, stallAfter: 4 }]);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  let streamed = "";
  s.subscribe((e) => {
    if (e.type === "text_delta") streamed += e.text;
  });
  const turn = s.submit("count");
  await until(s, () => streamed.length >= 30);
  const mid = s.history();
  expect(mid.at(-1)).toEqual({ type: "text_delta", text: streamed });
  s.cancel();
  expect(await turn).toBe("cancelled");
  const done = s.history();
  expect(done.find((e) => e.type === "assistant")).toEqual({ type: "assistant", text: streamed });
  expect(done.some((e) => e.type === "text_delta")).toBe(false);
  await s.close();
  const again = await engine.resumeSession(s.id);
  expect(again.history().find((e) => e.type === "assistant")).toEqual({ type: "assistant", text: streamed });
});

test("a pending approval is in history() until answered; writer events carry diffs (also after a resume)", async () => {
  const sb = makeSandbox();
  writeFileSync(join(sb.workspace, "a.txt"), "alpha\nbeta\n");
  const llm = await startScriptedOpenAI([{ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "alpha\ngamma\n" } }] }, { text: "ok" }]);
  const engine = engineFor(sb, llm.url, { permissionMode: "ask" });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  const asked = until(s, (e) => e.type === "approval_request");
  const turn = s.submit("edit");
  const req = (await asked) as Extract<EngineEvent, { type: "approval_request" }>;
  expect(req.diff?.[0]).toMatchObject({ path: "a.txt", kind: "modify", added: 1, removed: 1 });
  expect(req.diff![0]!.hunks[0]!.lines).toEqual([" alpha", "-beta", "+gamma"]);
  expect(s.history().at(-1)).toEqual(req);
  s.approve(req.callId, "once");
  expect(await turn).toBe("done");
  expect(readFileSync(join(sb.workspace, "a.txt"), "utf8")).toBe("alpha\ngamma\n");
  const h = s.history();
  expect(h.some((e) => e.type === "approval_request")).toBe(false);
  const result = h.find((e) => e.type === "tool_result") as Extract<EngineEvent, { type: "tool_result" }>;
  expect(result.diff?.[0]).toMatchObject({ path: "a.txt", added: 1, removed: 1 });
  await s.close();
  const back = (await engine.resumeSession(s.id)).history().find((e) => e.type === "tool_result") as Extract<EngineEvent, { type: "tool_result" }>;
  expect(back.diff).toEqual(result.diff);
});
