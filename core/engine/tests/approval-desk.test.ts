// The approval desk: each approval is one wait on the turn's AbortSignal, and
// the abort listener it adds goes away when the user answers — a long turn of
// many approvals must not pile listeners onto its signal.
import { afterEach, expect, test } from "bun:test";
import { getEventListeners } from "node:events";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import type { EngineEvent } from "../types.ts";
import { engineFor, makeSandbox, testTools } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("many approvals in one turn leave no abort listener behind on the turn's signal", async () => {
  const rounds = 12;
  const counts: number[] = [];
  const tools = testTools();
  const probe: ToolDefinition<{ n: number }> = {
    name: "probe",
    description: "A writer that reports how many abort listeners its signal carries",
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    kind: "write",
    summarize: (i) => `probe ${i.n}`,
    async run(_i, ctx) {
      counts.push(getEventListeners(ctx.signal, "abort").length);
      return { ok: true, output: "probed" };
    },
  };
  tools.register(probe);
  const sb = makeSandbox();
  const steps = Array.from({ length: rounds }, (_, n) => ({ toolCalls: [{ name: "probe", arguments: { n } }] }));
  const llm = await startScriptedOpenAI([...steps, { text: "all probed" }]);
  const engine = engineFor(sb, llm.url, { tools, permissionMode: "ask", maxSteps: rounds + 5 });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  const asked: string[] = [];
  s.subscribe((e: EngineEvent) => {
    if (e.type !== "approval_request") return;
    asked.push(e.callId);
    queueMicrotask(() => s.approve(e.callId, "once"));
  });
  expect(await s.submit("probe many times")).toBe("done");
  expect(asked).toHaveLength(rounds);
  expect(counts).toHaveLength(rounds);
  // The same number of listeners at the last approved call as at the first.
  expect(counts.at(-1)).toBe(counts[0]!);
});
