// Text steered into a running turn that then ends without reading it — at its
// step limit, as a planner-only turn, or as the last turn of a goal loop —
// starts the next turn (start-if-idle, as the chat, the web UI and serve
// steer), like text steered as an ordinary turn finishes. It used to wait
// unseen for the user's next message. A cancelled turn is the exception: the
// user stopped it, so the text goes with the next message and a notice says so.
// Real engine and host, scripted models over HTTP; every wait is for a state
// the test's own action causes.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { pollFor } from "../../testing/fresh-wait.ts";
import { holdTurnEnd, until } from "../../engine/tests/helpers.ts";
import { setup as plannerSetup } from "../../planner/tests/helpers.ts";
import type { EngineSession } from "../../engine/types.ts";
import { SessionHost } from "../session-host.ts";
import { PromptQueue } from "../queue.ts";
import { hostRig, nextPromptCarries } from "./host-rig.ts";

const { cleanups, setup } = hostRig();

const nextTurnOn = (s: EngineSession, prompt: string) => until(s, (e) => e.type === "turn_start" && e.prompt === prompt);

test("text steered into a turn that ends at its step limit starts the next turn with it, sent once", async () => {
  const gate = Promise.withResolvers<void>();
  cleanups.push(() => gate.resolve());
  const { llm, host } = await setup([{ toolCalls: [{ name: "read_file", arguments: { path: "nothing.txt" } }], until: gate.promise }, { text: "short it is" }], { maxSteps: 1 });
  const s = host.session;
  const first = host.submit("look around");
  // The turn's one model step is on the wire: the steer is accepted for a later step that never comes.
  await pollFor("the first model request", () => llm.chatRequests().length, (n) => n === 1);
  const second = nextTurnOn(s, "keep it short");
  expect(host.steer("keep it short", { startIfIdle: true })).toBe("steer_accepted");
  gate.resolve();
  expect(await first).toBe("max_steps");
  await second;
  expect(await host.turn).toBe("done");
  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(2);
  const sent = reqs[1]!.body.messages.filter((m: { role: string }) => m.role === "user").map((m: { content: unknown }) => m.content);
  expect(sent).toEqual(["look around", "keep it short"]);
  expect(host.busy).toBe(false);
});

test("text steered into a planner-only turn starts the next turn with it", async () => {
  const gate = Promise.withResolvers<void>();
  const PLAN = { summary: "Look at notes.txt.", steps: ["read notes.txt"], verified_touchpoints: ["notes.txt"], candidate_touchpoints: [], non_goals: [], risks: [], acceptance_criteria: ["read"], verification_commands: [] };
  const rig = await plannerSetup([{ text: "the risks are small" }], [{ toolCalls: [{ name: "submit_plan", arguments: PLAN }], until: gate.promise }]);
  cleanups.push(() => rig.close(), () => gate.resolve());
  const host = new SessionHost(rig.engine, await rig.engine.createSession());
  cleanups.push(() => host.session.close());
  const s = host.session;
  const first = host.submit("plan only: how would you read notes.txt?");
  await pollFor("the planner's request", () => rig.plan.chatRequests().length, (n) => n === 1);
  const second = nextTurnOn(s, "and name the risks");
  expect(host.steer("and name the risks", { startIfIdle: true })).toBe("steer_accepted");
  gate.resolve();
  expect(await first).toBe("done");
  expect(s.history().some((e) => e.type === "plan" && e.route === "plan_only")).toBe(true);
  await second;
  expect(await host.turn).toBe("done");
  expect(rig.exec.chatRequests()).toHaveLength(1);
  expect(rig.exec.chatRequests()[0]!.body.messages.at(-1)).toEqual({ role: "user", content: "and name the risks" });
});

test("text steered as a goal loop's last turn finishes starts a turn once the loop stops", async () => {
  const { llm, host } = await setup([
    { toolCalls: [{ name: "update_goal", arguments: { status: "complete", evidence: "nothing to do" } }] },
    { text: "goal met" },
    { text: "here is the summary" },
  ]);
  const s = host.session;
  const { atEnd, release } = holdTurnEnd(s);
  cleanups.push(() => release.resolve());
  const goal = s.goal.start("do nothing much");
  await atEnd.promise;
  // The goal turn has read guidance for the last time; the loop still runs.
  expect(s.takesSteering).toBe(false);
  expect(s.goal.running).toBe(true);
  const next = nextTurnOn(s, "now summarize");
  expect(host.steer("now summarize", { startIfIdle: true })).toBe("steer_accepted");
  release.resolve();
  expect((await goal).status).toBe("complete");
  await next;
  expect(await host.turn).toBe("done");
  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(3);
  expect(reqs[2]!.body.messages.at(-1)).toEqual({ role: "user", content: "now summarize" });
});

test("a cancelled turn does not start another: what it did not read goes with the next message, and a notice says so", async () => {
  const gate = Promise.withResolvers<void>();
  cleanups.push(() => gate.resolve());
  const { llm, host } = await setup([{ text: "never seen", until: gate.promise }, { text: "second answer" }]);
  const s = host.session;
  const notice = until(s, (e) => e.type === "warning" && e.code === "steer_unread");
  const first = host.submit("start");
  await pollFor("the first model request", () => llm.chatRequests().length, (n) => n === 1);
  expect(host.steer("wait, one more thing", { startIfIdle: true })).toBe("steer_accepted");
  s.cancel();
  expect(await first).toBe("cancelled");
  await notice;
  await nextPromptCarries({ host, llm }, 1, "wait, one more thing");
});

test("text steered into a finishing turn is on disk (0600) until the turn it starts has settled; a reopened queue gets it back, paused", async () => {
  const { llm, host } = await setup([{ text: "first answer" }, { text: "answer to the late words" }]);
  const s = host.session;
  const { atEnd, release } = holdTurnEnd(s);
  cleanups.push(() => release.resolve());
  const file = host.engine.queueFile(s.id)!;
  const first = host.submit("go");
  await atEnd.promise;
  expect(host.steer("do not lose this", { startIfIdle: true })).toBe("started_turn");
  // On disk before steer() returned, apart from the queue: a process that died now would find it.
  const saved = JSON.parse(readFileSync(file, "utf8"));
  expect(saved.held).toHaveLength(1);
  expect(saved.items).toEqual([]);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readFileSync(join(dirname(file), "queue", saved.held[0].hash), "utf8")).toBe("do not lose this");
  const reopened = new PromptQueue(file);
  expect([reopened.texts, reopened.paused]).toEqual([["do not lose this"], true]);
  const second = nextTurnOn(s, "do not lose this");
  release.resolve();
  expect(await first).toBe("done");
  await second;
  expect(await host.turn).toBe("done");
  expect(llm.chatRequests()[1]!.body.messages.at(-1)).toEqual({ role: "user", content: "do not lose this" });
  // Delivered and its turn settled: nothing is held any more.
  await pollFor("the held text let go", () => existsSync(file), (there) => !there);
  expect(host.queue.texts).toEqual([]);
});
