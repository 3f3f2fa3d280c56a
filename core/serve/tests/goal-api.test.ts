// Goal mode over the serve API (real HTTP, scripted model): start runs the
// loop in the background, GET shows its state, pause/resume/clear control it,
// and the session history carries the goal events for every client.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;
beforeAll(async () => {
  rig = await startApiRig("goal-api");
});
afterAll(async () => {
  await rig?.close();
});

const call = (path: string, method: string, body?: unknown) => rig.call(path, method, body);
const report = (status: string, evidence: string) => ({ name: "update_goal", arguments: { status, evidence } });
const newSession = async () => (await call("/api/sessions", "POST", {})).body.id as string;

test("POST goal start drives turns in the background until complete; GET shows it; history replays the goal events", async () => {
  const id = await newSession();
  rig.llm.push({ toolCalls: [report("continue", "half")] }, { text: "one" }, { toolCalls: [report("complete", "all of it")] }, { text: "two" });
  const started = await call(`/api/sessions/${id}/goal`, "POST", { action: "start", objective: "finish the job" });
  expect(started.status).toBe(200);
  expect(started.body.goal).toMatchObject({ objective: "finish the job", status: "active" });
  expect(started.body.running).toBe(true);
  const done = await waitFor("the goal to complete", async () => {
    const g = await call(`/api/sessions/${id}/goal`, "GET");
    return g.body.goal?.status === "complete" && !g.body.running ? g.body : undefined;
  });
  expect(done.goal).toMatchObject({ turns: 2, requests: 4, reason: "all of it" });
  const h = await call(`/api/sessions/${id}/history`, "GET");
  expect(h.body.events.filter((e: any) => e.type === "goal").map((e: any) => e.change)).toEqual(["started", "turn", "complete"]);
  // A finished goal cannot be resumed; a new one can start.
  const again = await call(`/api/sessions/${id}/goal`, "POST", { action: "resume" });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe("no_paused_goal");
});

test("bad requests: no objective 400, unknown action 400, pause without a running goal 409", async () => {
  const id = await newSession();
  expect((await call(`/api/sessions/${id}/goal`, "POST", { action: "start", objective: "  " })).status).toBe(400);
  expect((await call(`/api/sessions/${id}/goal`, "POST", { action: "explode" })).status).toBe(400);
  const pause = await call(`/api/sessions/${id}/goal`, "POST", { action: "pause" });
  expect(pause.status).toBe(409);
  expect(pause.body.error.message).toContain("no goal");
  expect((await call(`/api/sessions/${id}/goal`, "GET")).body).toEqual({ goal: null, running: false });
});

test("an evaluator failure pauses the goal; resume continues it; clear drops it", async () => {
  const id = await newSession();
  rig.llm.push({ text: "worked a bit" }, { text: "not json at all" });
  await call(`/api/sessions/${id}/goal`, "POST", { action: "start", objective: "do the thing" });
  const paused = await waitFor("the pause", async () => {
    const g = (await call(`/api/sessions/${id}/goal`, "GET")).body;
    return g.goal?.status === "paused" && !g.running ? g.goal : undefined;
  });
  expect(paused.pauseCode).toBe("evaluator");
  rig.llm.push({ toolCalls: [report("complete", "done after resume")] }, { text: "ok" });
  expect((await call(`/api/sessions/${id}/goal`, "POST", { action: "resume" })).status).toBe(200);
  await waitFor("completion", async () => (await call(`/api/sessions/${id}/goal`, "GET")).body.goal?.status === "complete");
  const cleared = await call(`/api/sessions/${id}/goal`, "POST", { action: "clear" });
  expect(cleared.body.goal.status).toBe("cleared");
});
