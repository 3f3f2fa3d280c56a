// The approval desk: each approval is one wait on the turn's AbortSignal, and
// the abort listener it adds goes away when the user answers — a long turn of
// many approvals must not pile listeners onto its signal.
import { afterEach, expect, test } from "bun:test";
import { getEventListeners } from "node:events";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import type { EngineEvent } from "../types.ts";
import { ApprovalDesk, type ApprovalRequest } from "../approvals.ts";
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

const request = (callId: string): ApprovalRequest => ({ type: "approval_request", callId, name: "write_file", input: {}, summary: `write ${callId}`, suggestedRule: "Edit(x)" });

test("the desk: an answered wait removes its listener, a cancel answers deny, an unknown call is refused", async () => {
  const events: EngineEvent[] = [];
  const desk = new ApprovalDesk((e) => events.push(e));
  const ac = new AbortController();
  const first = desk.ask(request("a"), ac.signal);
  expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
  expect(desk.pending().map((e) => (e as ApprovalRequest).callId)).toEqual(["a"]);
  desk.answer("a", "once");
  expect(await first).toBe("once");
  expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
  expect(desk.pending()).toEqual([]);
  expect(() => desk.answer("a", "once")).toThrow("no pending approval for call a");

  const second = desk.ask(request("b"), ac.signal);
  ac.abort();
  expect(await second).toBe("deny");
  expect(events.filter((e) => e.type === "approval_resolved")).toEqual([
    { type: "approval_resolved", callId: "a", decision: "once" },
    { type: "approval_resolved", callId: "b", decision: "deny" },
  ]);
});

test("the desk: a relayed request is answered once, or withdrawn; the turn's end denies what still waits", async () => {
  const desk = new ApprovalDesk(() => {});
  const told: string[] = [];
  desk.relay(request("r1"), (d) => told.push(`r1 ${d}`));
  const withdraw = desk.relay(request("r2"), (d) => told.push(`r2 ${d}`));
  desk.answer("r1", "session");
  withdraw();
  expect(() => desk.answer("r2", "once")).toThrow("no pending approval");
  const waiting = desk.ask(request("w"), new AbortController().signal);
  desk.denyAll();
  expect(await waiting).toBe("deny");
  expect(told).toEqual(["r1 session"]);
  expect(desk.pending()).toEqual([]);
});

test("the desk: a turn cancelled before the request is shown is denied at once, and nothing is shown", async () => {
  const events: EngineEvent[] = [];
  const desk = new ApprovalDesk((e) => events.push(e));
  const ac = new AbortController();
  ac.abort();
  // Before: the listener went onto an already-aborted signal (it never fires), so
  // the wait lasted until someone answered a request of a cancelled turn.
  expect(await desk.ask(request("late"), ac.signal)).toBe("deny");
  expect(events).toEqual([]);
  expect(desk.pending()).toEqual([]);
});
