// A subagent's `ask` (issue 29): only the session the user talks to asks
// them. In an interactive parent the child's question is answered at once as
// not askable (it must decide, or name the open question in its answer), and
// nothing waits or reaches the parent's front ends.
import { afterEach, expect, test } from "bun:test";
import type { EngineEvent } from "../../engine/types.ts";
import { call, text, world, type World } from "./helpers.ts";

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

test("a child's question is answered as not askable; the parent's turn goes on", async () => {
  w = await world(
    (t) =>
      t.role === "parent"
        ? t.results === 0 ? call("task", { description: "quiz", prompt: "pick a database" }) : text("parent done")
        : t.results === 0 ? call("ask", { question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] }) : text("child picked SQLite"),
    { headless: false, mode: "ask" },
  );
  const parent = await w.engine.createSession();
  const events: EngineEvent[] = [];
  parent.subscribe((e) => events.push(e));
  expect(await parent.submit("delegate")).toBe("done");
  const child = w.turns.filter((t) => t.role === "quiz");
  expect(child).toHaveLength(2);
  const result = child[1]!.req.body.messages.findLast((m: { role: string }) => m.role === "tool").content as string;
  expect(result).toBe("The question was not answered: a subagent cannot ask the user; decide yourself, or name the open question in your final answer.");
  expect(events.some((e) => e.type === "question_request")).toBe(false);
});
