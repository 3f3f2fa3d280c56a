// Novelty-based progress, stall redirects and ordered sign-offs, driven by a
// real session over the scripted LLM.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent } from "../../engine/types.ts";
import { steerMessage } from "../../engine/session.ts";
import { ProgressTracker } from "../progress.ts";
import { DRIVER_NOTE_LABEL, redirectMessage } from "../prompts.ts";
import { signOff } from "../tools.ts";
import { cleanupAfterEach, report, rig } from "./helpers.ts";

cleanupAfterEach();

const read = (path: string) => ({ toolCalls: [{ name: "read_file", arguments: { path } }] });

test("an exact repeat (same tool, arguments and result) is not progress; a changed result is", async () => {
  const { sb, s } = await rig([
    read("a.txt"), // new: progress
    read("a.txt"), // exact repeat: none
    { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }, { name: "read_file", arguments: { path: "a.txt" } }] }, // repeats: none
    { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "changed" } }] }, // mutation: progress
    read("a.txt"), // same call, new result: progress
    read("missing.txt"), // a failure: none
    { text: "done" }, // a final answer: a round without progress
  ]);
  writeFileSync(join(sb.workspace, "a.txt"), "original");
  const stalls: number[] = [];
  const t = new ProgressTracker(8, (n) => stalls.push(n));
  s.subscribe((e) => t.observe(e));
  expect(await s.submit("poke around")).toBe("done");
  expect(t.progressRounds).toBe(3);
  expect(t.stalled).toBe(2);
  expect(stalls).toEqual([]);
});

test("argument order does not make a repeat look new", async () => {
  const t = new ProgressTracker(8, () => {});
  const round = (id: string, input: unknown) => {
    t.observe({ type: "assistant", text: "" });
    t.observe({ type: "tool_call", callId: id, name: "grep", input });
    t.observe({ type: "tool_result", callId: id, name: "grep", ok: true, output: "x:1" });
  };
  round("1", { pattern: "x", path: "." });
  round("2", { path: ".", pattern: "x" });
  expect(t.progressRounds).toBe(1);
  expect(t.stalled).toBe(1);
});

test("8 rounds without progress inject a strategy redirect at the tail of the next request, worded as the goal driver's note", async () => {
  const steps = [...Array.from({ length: 9 }, () => read("a.txt")), { toolCalls: [report("complete", "a.txt read")] }, { text: "done" }];
  const { sb, s, llm, events } = await rig(steps);
  writeFileSync(join(sb.workspace, "a.txt"), "same every time");
  const final = await s.goal!.start("read a.txt until it changes");
  expect(final.status).toBe("complete");
  const reqs = llm.chatRequests();
  // Round 1 was new; rounds 2..9 repeated it: the 10th request carries the redirect.
  for (let i = 0; i < 9; i++) expect(JSON.stringify(reqs[i]!.body.messages)).not.toContain("Change strategy");
  const last = reqs[9]!.body.messages.at(-1);
  expect(last.role).toBe("user");
  expect(last.content).toContain("Change strategy");
  // Worded as the goal driver's note, never as something the user added (steering's label).
  expect(last.content).toBe(redirectMessage(8));
  expect(last.content.startsWith(DRIVER_NOTE_LABEL)).toBe(true);
  expect(last.content).not.toContain(steerMessage("").trim());
  expect(JSON.stringify(reqs[9]!.body.messages)).not.toContain("The user added this");
  expect(reqs[9]!.body.messages.at(-2).role).toBe("tool");
  expect(JSON.stringify(reqs[9]!.body.tools)).toBe(JSON.stringify(reqs[0]!.body.tools));
  const redirects = events.filter((e) => e.type === "goal" && e.change === "redirect");
  expect(redirects).toHaveLength(1);
});

test("signOff follows the todo order and needs evidence", () => {
  const todos = [
    { content: "write the test", status: "in_progress" as const },
    { content: "fix the bug", status: "pending" as const },
  ];
  expect(signOff([], "x", "e")).toEqual({ ok: false, error: expect.stringContaining("no todo list") });
  expect(signOff(todos, "fix the bug", "tests pass")).toEqual({ ok: false, error: expect.stringContaining("in order") });
  expect(signOff(todos, "write the test", "  ")).toEqual({ ok: false, error: expect.stringContaining("evidence") });
  const r = signOff(todos, "1", "test added in a.test.ts");
  expect(r.ok).toBe(true);
  if (!r.ok) return;
  expect(r.items.map((t) => t.status)).toEqual(["completed", "in_progress"]);
  expect(signOff(r.items, "write the test", "again")).toEqual({ ok: false, error: expect.stringContaining("already signed off") });
});

test("complete_step in a goal: out-of-order refused, in-order batch accepted, complete refused while steps are open", async () => {
  const todo = { name: "todo_write", arguments: { todos: [{ content: "step one", status: "in_progress" }, { content: "step two", status: "pending" }] } };
  const { s, llm, events } = await rig([
    { toolCalls: [todo] },
    { toolCalls: [{ name: "complete_step", arguments: { step: "step two", evidence: "done" } }, report("complete", "all done")] },
    {
      toolCalls: [
        { name: "complete_step", arguments: { step: "step one", evidence: "one.txt written" } },
        { name: "complete_step", arguments: { step: "step two", evidence: "two.txt written" } },
        report("complete", "both steps signed off"),
      ],
    },
    { text: "finished" },
  ]);
  const final = await s.goal!.start("two steps");
  expect(final.status).toBe("complete");
  expect(final.signoffs).toEqual([
    { step: "step one", evidence: "one.txt written" },
    { step: "step two", evidence: "two.txt written" },
  ]);
  const refused = llm.chatRequests()[2]!.body.messages.filter((m: any) => m.role === "tool").slice(-2);
  expect(refused[0].content).toContain('"step one" comes before "step two"');
  expect(refused[1].content).toContain("open step");
  expect(refused[1].content).toContain("the todo list still has 2 open steps:");
  const lastTodo = events.filter((e) => e.type === "todo").at(-1) as Extract<EngineEvent, { type: "todo" }>;
  expect(lastTodo.items.every((t) => t.status === "completed")).toBe(true);
});
