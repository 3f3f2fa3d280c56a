// POST /api/sessions/:id/command runs any built-in command through the
// shared dispatcher (core/host/commands): a command the web UI cannot show
// says what to use instead, /new answers the new session, a missing argument
// comes back as the choices to offer — and none of it reaches the model.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startApiRig, type ApiRig } from "./api-rig.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;
beforeAll(async () => {
  rig = await startApiRig("command-api", { configToml: `[[providers]]\nname = "t"\nkind = "openai"\nbase_url = "{{LLM}}"\nmodel = "m2"\n` });
});
afterAll(async () => {
  await rig?.close();
});

test("unavailable commands say where to go; /new opens a session; /model without a name offers the models; nothing reaches the model", async () => {
  const { id } = (await rig.call("/api/sessions", "POST", {})).body as { id: string };
  const cost = await rig.call(`/api/sessions/${id}/command`, "POST", { name: "cost" });
  expect(cost.status).toBe(200);
  expect(cost.body).toMatchObject({ ok: false, unavailable: true, text: "/cost is a terminal chat command, not available in the web UI: the usage line under the prompt box shows tokens and spend" });

  const models = await rig.call(`/api/sessions/${id}/command`, "POST", { name: "model" });
  expect(models.body.choose.items.map((i: { value: string }) => i.value)).toEqual(["s", "t"]);
  const badMode = await rig.call(`/api/sessions/${id}/command`, "POST", { name: "mode", arg: "yolo" });
  expect(badMode.body).toMatchObject({ ok: false, text: 'unknown mode "yolo" (one of ask, auto, plan, read-only)' });
  const nothing = await rig.call(`/api/sessions/${id}/command`, "POST", { name: "rewind", arg: "" });
  expect(nothing.body).toMatchObject({ ok: false, text: "nothing to rewind to" });

  const fresh = await rig.call(`/api/sessions/${id}/command`, "POST", { name: "new" });
  expect(fresh.body).toMatchObject({ ok: true, changed: "new" });
  const newId = fresh.body.data.sessionId as string;
  expect(newId).not.toBe(id);
  expect((await rig.call(`/api/sessions/${newId}/resume`, "POST")).status).toBe(200);

  expect((await rig.call(`/api/sessions/${id}/command`, "POST", { name: "model", arg: 7 })).status).toBe(400);
  expect((await rig.call(`/api/sessions/${id}/command`, "POST", { name: "rm" })).status).toBe(400);
  expect(rig.llm.chatRequests()).toHaveLength(0);
});
