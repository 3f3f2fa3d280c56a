// POST /api/sessions/:id/questions/:callId answers the model's `ask`: the
// waiting question is in the history (what a reloaded page shows), an answer
// that does not fit is a 400 naming why and leaves the question waiting, a
// fitting one becomes the tool result; unknown questions are refused.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;

beforeAll(async () => {
  rig = await startApiRig("ask-api");
});
afterAll(async () => {
  await rig?.close();
});

const call = (path: string, method: string, body?: unknown) => rig.request(path, method, body);

test("the waiting question is in the history; a bad answer is a 400 and it keeps waiting; a good one is the tool result", async () => {
  const id = ((await (await call("/api/sessions", "POST", {})).json()) as { id: string }).id;
  const before = rig.llm.chatRequests().length;
  rig.llm.push({ toolCalls: [{ name: "ask", arguments: { question: "Tabs or spaces?", options: [{ label: "tabs" }, { label: "spaces" }] } }] }, { text: "spaces it is" });
  expect((await call(`/api/sessions/${id}/prompt`, "POST", { prompt: "format it" })).status).toBe(202);
  const pending = async () => ((await (await call(`/api/sessions/${id}/history`, "GET")).json()) as { events: any[] }).events.filter((e) => e.type === "question_request");
  const [q] = await waitFor("the question in the history", async () => ((await pending()).length === 1 ? await pending() : undefined), 20_000);
  expect(q).toMatchObject({ question: "Tabs or spaces?", multi: false, allowText: false });
  const path = `/api/sessions/${id}/questions/${encodeURIComponent(q.callId)}`;
  const bad = await call(path, "POST", { choices: ["tabs", "spaces"] });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { message: string } }).error.message).toContain("one choice");
  expect((await call(path, "POST", { choices: "tabs" })).status).toBe(400);
  expect(await pending()).toHaveLength(1);
  expect((await call(`/api/sessions/${id}/questions/nope`, "POST", { dismissed: true })).status).toBe(400);
  expect((await call(path, "POST", { choices: ["spaces"] })).status).toBe(200);
  const second = await waitFor("the next request", () => rig.llm.chatRequests()[before + 1], 20_000);
  expect(second.body.messages.findLast((m: any) => m.role === "tool").content).toBe("The user chose: spaces");
});
