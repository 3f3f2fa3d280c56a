// /queue through the one dispatcher (core/host/commands/queue.ts) on a real
// engine and session host (scripted model over HTTP): list with bounded
// previews, show, edit, delete, move, pause and resume (which starts the next
// prompt through the front end's runner), retry of a failed one — and the
// queue file following the host to a new conversation.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dispatch } from "../commands/index.ts";
import { pollFor } from "../../testing/fresh-wait.ts";
import { hostRig } from "./host-rig.ts";
import type { TurnEndReason } from "../../protocol/turn.ts";

const rig = hostRig();
const cleanups = rig.cleanups;

async function setup(script: Parameters<typeof rig.setup>[0]) {
  const { llm, host } = await rig.setup(script);
  const sent: string[] = [];
  let outcome: TurnEndReason = "done";
  host.queueRunner = (t) => {
    sent.push(t);
    return host.submit(t).then(() => outcome);
  };
  const run = async (text: string) => (await dispatch({ surface: "chat", host }, text))!;
  return { llm, host, sent, run, fail: (r: TurnEndReason) => (outcome = r) };
}

test("list, show, edit, delete, move, pause and resume: resume sends the head through the runner", async () => {
  const { host, sent, run } = await setup([{ text: "one done" }]);
  host.queue.pause();
  for (const t of ["alpha", `beta ${"long ".repeat(40)}`, "gamma\nsecond line"]) expect((await run(`/queue add ${t}`)).ok).toBe(true);
  const list = await run("/queue list");
  expect(list.lines[0]).toBe("Queued (3/64, sent in this order after the running turn):");
  expect(list.lines[1]).toBe("  1. alpha");
  // A bounded preview: one line, at most 80 characters.
  expect(list.lines[2]!.length).toBeLessThanOrEqual(85);
  expect(list.lines[2]).toEndWith("…");
  expect(list.lines[3]).toBe("  3. gamma second line");
  expect(list.lines.at(-1)).toBe("paused · /queue resume sends them again");
  expect((await run("/queue show 3")).lines).toEqual(["Queued prompt 3 (17 bytes):", "gamma", "second line"]);
  expect((await run("/queue edit 1 alpha, edited")).lines[0]).toBe("edited 1: alpha, edited");
  expect((await run("/queue move 3 1")).lines[0]).toBe("moved to 1: gamma second line");
  expect((await run("/queue delete 3")).lines[0]).toStartWith("deleted 3: beta");
  expect(host.queue.texts).toEqual(["gamma\nsecond line", "alpha, edited"]);
  const missing = await run("/queue show 9");
  expect([missing.ok, missing.lines[0]]).toEqual([false, "queue: no queued prompt 9: the queue holds 2 (1–2)"]);
  expect((await run("/queue resume")).lines[0]).toBe("queue resumed: sending the next prompt");
  expect(sent).toEqual(["gamma\nsecond line"]);
  // The second follows when the first turn ends.
  await pollFor("the second queued prompt sent", () => sent.length, (n) => n === 2);
  await pollFor("the queue idle", () => host.queue.view(), (v) => !v.running);
});

test("a failed queued prompt pauses the queue; /queue retry sends it again", async () => {
  const { host, sent, run, fail } = await setup([{ text: "first" }, { text: "again" }]);
  fail("error");
  host.enqueue("flaky one");
  host.queue.add("after it");
  await pollFor("the failure recorded", () => host.queue.view(), (v) => v.failed !== undefined && !v.running);
  expect((await run("/queue list")).lines).toContain("last failed: flaky one (/queue retry)");
  expect(host.queue.paused).toBe(true);
  expect(sent).toEqual(["flaky one"]);
  fail("done");
  expect((await run("/queue retry")).lines[0]).toBe("retrying: flaky one");
  await pollFor("both sent", () => sent.length, (n) => n === 3);
  expect(sent).toEqual(["flaky one", "flaky one", "after it"]);
  expect((await run("/queue retry")).ok).toBe(false);
});

test("the queue file follows the host to a new conversation; bad input answers with the usage", async () => {
  const { host, run } = await setup([]);
  host.queue.pause();
  host.enqueue("carry me");
  const first = host.engine.queueFile!(host.session.id);
  expect(existsSync(first)).toBe(true);
  await host.replace(await host.engine.createSession());
  cleanups.push(() => host.session.close());
  expect(existsSync(first)).toBe(false);
  expect(existsSync(host.engine.queueFile!(host.session.id))).toBe(true);
  expect(host.queue.texts).toEqual(["carry me"]);
  const bad = await run("/queue move 1");
  expect([bad.ok, bad.lines]).toEqual([false, ["usage: /queue move N M (N to position M)"]]);
  const acp = await dispatch({ surface: "mcp", host }, "/queue list");
  expect(acp!.unavailable).toBe(true);
});
