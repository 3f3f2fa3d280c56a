// POST /api/sessions/:id/steer: guidance joins the running turn; with
// start_if_idle (what the web UI sends) text that arrives after the turn has
// ended starts the next turn instead of waiting unseen for one. The UI learns
// a turn ended from an event that can trail the engine, so Enter there must
// never lose a message.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;

beforeAll(async () => {
  rig = await startApiRig("steer-api");
});
afterAll(async () => {
  await rig?.close();
});

const call = (path: string, method: string, body?: unknown) => rig.request(path, method, body);
const newSession = async () => ((await (await call("/api/sessions", "POST", {})).json()) as { id: string }).id;
const turns = async (id: string) => ((await (await call(`/api/sessions/${id}/history`, "GET")).json()) as { events: { type: string; prompt?: string }[] }).events.filter((e) => e.type === "turn_start").map((e) => e.prompt);

test("during a turn: steer_accepted, and the next request of the same turn carries it", async () => {
  const id = await newSession();
  const before = rig.llm.chatRequests().length;
  // The first answer waits until the steering has been accepted.
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  rig.llm.push({ text: "first draft", until: held }, { text: "revised" });
  expect((await call(`/api/sessions/${id}/prompt`, "POST", { prompt: "write it" })).status).toBe(202);
  await waitFor("the first request", () => rig.llm.chatRequests()[before], 20_000);
  const r = await call(`/api/sessions/${id}/steer`, "POST", { text: "use tabs", start_if_idle: true });
  expect(await r.json()).toEqual({ disposition: "steer_accepted" });
  release();
  const second = await waitFor("the second request", () => rig.llm.chatRequests()[before + 1], 20_000);
  expect(JSON.stringify(second.body.messages.at(-1))).toContain("use tabs");
  await waitFor("the turn's end", async () => !(await (await call(`/api/sessions/${id}/resume`, "POST")).json()).busy, 20_000);
  expect(await turns(id)).toEqual(["write it"]);
});

test("idle with start_if_idle: the text starts a turn as its prompt (started_turn)", async () => {
  const id = await newSession();
  const before = rig.llm.chatRequests().length;
  rig.llm.push({ text: "answered" });
  const r = await call(`/api/sessions/${id}/steer`, "POST", { text: "late words", start_if_idle: true });
  expect(await r.json()).toEqual({ disposition: "started_turn" });
  const req = await waitFor("the request", () => rig.llm.chatRequests()[before], 20_000);
  expect(req.body.messages.at(-1)).toMatchObject({ role: "user", content: "late words" });
  expect(await turns(id)).toEqual(["late words"]);
});

test("idle without the flag: queued_followup, as the engine defines it (no turn starts)", async () => {
  const id = await newSession();
  const before = rig.llm.chatRequests().length;
  const r = await call(`/api/sessions/${id}/steer`, "POST", { text: "for later" });
  expect(await r.json()).toEqual({ disposition: "queued_followup" });
  await Bun.sleep(300);
  expect(rig.llm.chatRequests().length).toBe(before);
  expect(await turns(id)).toEqual([]);
  const bad = await call(`/api/sessions/${id}/steer`, "POST", { text: "x", start_if_idle: "yes" });
  expect(bad.status).toBe(400);
});
