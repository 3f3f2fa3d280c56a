// The session host (core/host/session-host.ts) owns what every front end used
// to keep for itself: busy state, steering with start-if-idle, the queue and
// the approvals outstanding — beside model, mode and effort. Real engine,
// scripted model over HTTP.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pollFor } from "../../testing/fresh-wait.ts";
import { steerMessage } from "../../engine/session.ts";
import { hostRig } from "./host-rig.ts";

const { cleanups, setup } = hostRig();

test("busy from a turn started here until it settles; steer with startIfIdle starts a turn when idle and steers a running one", async () => {
  const gate = Promise.withResolvers<void>();
  cleanups.push(() => gate.resolve());
  const { llm, host } = await setup([{ text: "held", until: gate.promise }, { text: "steered answer" }]);
  expect(host.busy).toBe(false);
  expect(host.steer("first", { startIfIdle: true })).toBe("started_turn");
  // Busy at once: the engine may not have opened the turn yet, the host has.
  expect(host.busy).toBe(true);
  await pollFor("the held request", () => llm.chatRequests().length, (n) => n >= 1);
  expect(host.steer("more please", { startIfIdle: true })).toBe("steer_accepted");
  gate.resolve();
  expect(await host.turn).toBe("done");
  expect(host.busy).toBe(false);
  expect(host.turn).toBeUndefined();
  expect(JSON.stringify(llm.chatRequests()[1]!.body.messages.at(-1))).toContain(JSON.stringify(steerMessage("more please")).slice(1, -1));
  // Without startIfIdle, idle text waits for the next turn.
  expect(host.steer("later")).toBe("queued_followup");
});

test("approvals outstanding: listed while one waits, answered through the host, gone after", async () => {
  const { sb, host } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x\n" } }] }, { text: "wrote" }]);
  expect(host.approvals()).toEqual([]);
  const turn = host.submit("write x");
  const waiting = await pollFor("an approval waiting", () => host.approvals(), (a) => a.length === 1);
  expect(waiting[0]).toMatchObject({ type: "approval_request", name: "write_file" });
  host.approve(waiting[0]!.callId, "once");
  expect(await turn).toBe("done");
  expect(host.approvals()).toEqual([]);
  expect(existsSync(join(sb.workspace, "x.txt")) && readFileSync(join(sb.workspace, "x.txt"), "utf8")).toBe("x\n");
});

test("the queue belongs to the host: it survives a new conversation put in place", async () => {
  const { host } = await setup([]);
  host.queue.add("after this turn");
  await host.replace(await host.engine.createSession());
  cleanups.push(() => host.session.close());
  expect(host.queue.texts).toEqual(["after this turn"]);
});

test("runShell: busy while it runs, an approval through the host in ask mode, the output in the next turn's user message only", async () => {
  const { llm, host } = await setup([{ text: "seen" }, { text: "again" }]);
  const run = host.runShell("echo shell-out-91");
  expect(host.busy).toBe(true);
  const waiting = await pollFor("the shell line's approval", () => host.approvals(), (a) => a.length === 1);
  expect(waiting[0]).toMatchObject({ name: "bash", input: { command: "echo shell-out-91" } });
  host.approve(waiting[0]!.callId, "once");
  const r = await run;
  expect(r.ok).toBe(true);
  expect(r.output).toContain("shell-out-91");
  await pollFor("the host idle", () => host.busy, (b) => !b);
  expect(llm.chatRequests()).toHaveLength(0);
  expect(await host.submit("what did it say?")).toBe("done");
  const body = llm.chatRequests()[0]!.body;
  const last = body.messages.at(-1);
  expect(last.role).toBe("user");
  expect(last.content).toContain("$ echo shell-out-91\nshell-out-91");
  expect(last.content.endsWith("what did it say?")).toBe(true);
  expect(JSON.stringify(body.messages.filter((m: { role: string }) => m.role === "system"))).not.toContain("shell-out-91");
  // Said once: the turn after does not carry it again.
  expect(await host.submit("and now?")).toBe("done");
  expect(llm.chatRequests()[1]!.body.messages.at(-1)).toEqual({ role: "user", content: "and now?" });
});

test("toggleYolo: on, remembering the mode it replaced, then back to it; every front end hears of each change", async () => {
  const { host } = await setup([]);
  host.setMode("plan");
  let changes = 0;
  host.onChange(() => changes++);
  expect(host.toggleYolo()).toBe("yolo");
  expect(host.mode).toBe("yolo");
  expect(host.toggleYolo()).toBe("plan");
  expect(host.mode).toBe("plan");
  expect(changes).toBe(2);
});
