// Subagents and memory: the user's turn recalls, a child session (its task comes from
// the model) neither recalls nor gets the memory tools.
import { afterEach, expect, test } from "bun:test";
import { call, text, toolNames, world, type World } from "../../agents/tests/helpers.ts";
import { MemoryStore } from "../store.ts";

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

test("the parent's user turn carries the recalled fact and the memory tools; the child has neither", async () => {
  w = await world((t) => {
    if (t.role === "parent") return t.results === 0 ? call("task", { description: "checklist", prompt: "Find the release checklist and summarize it.", read_only: true }) : text("done");
    return text("FINAL: the checklist has three steps");
  });
  new MemoryStore(w.sb.home, w.sb.workspace).create({ id: "release-checklist", text: "The release checklist lives in docs/RELEASE.md", type: "reference", scope: "project" });
  const parent = await w.engine.createSession();
  expect(await parent.submit("walk me through the release checklist")).toBe("done");
  const parentReq = w.turns.find((t) => t.role === "parent")!.req;
  expect(parentReq.body.messages.at(-1).content).toContain("[release-checklist · reference · project · ");
  for (const n of ["remember", "forget", "recall"]) expect(toolNames(parentReq)).toContain(n);
  const childReqs = w.turns.filter((t) => t.role === "checklist");
  expect(childReqs.length).toBeGreaterThan(0);
  for (const c of childReqs) {
    expect(c.req.rawBody).not.toContain("<memory>");
    for (const n of ["remember", "forget", "recall"]) expect(toolNames(c.req)).not.toContain(n);
  }
});
