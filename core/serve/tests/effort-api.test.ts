// POST /api/sessions/:id/effort sets the session's reasoning effort (the web
// UI's control); the next request to the scripted model carries it.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;
let llm: ApiRig["llm"];

beforeAll(async () => {
  rig = await startApiRig("effort-api", { providerToml: "vision = true\n" });
  llm = rig.llm;
});
afterAll(async () => {
  await rig?.close();
});

const call = (path: string, method: string, body?: unknown) => rig.request(path, method, body);

test("set, refuse an unknown value, reset to default", async () => {
  const { id } = (await (await call("/api/sessions", "POST", {})).json()) as { id: string };
  const set = await call(`/api/sessions/${id}/effort`, "POST", { effort: "max" });
  expect(set.status).toBe(200);
  expect(await set.json()).toEqual({ effort: "max" });
  const bad = await call(`/api/sessions/${id}/effort`, "POST", { effort: "turbo" });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(await bad.json())).toContain('unknown reasoning effort \\"turbo\\"');
  llm.push({ text: "ok" });
  expect((await call(`/api/sessions/${id}/prompt`, "POST", { prompt: "hi" })).status).toBe(202);
  await waitFor("the request", () => llm.chatRequests()[0], 20_000);
  expect(llm.chatRequests()[0]!.body.reasoning_effort).toBe("high"); // OpenAI-style scale: max → high
  expect(await (await call(`/api/sessions/${id}/effort`, "POST", { effort: "default" })).json()).toEqual({ effort: "default" });
});

test("a prompt with pasted images: checked, then sent as image parts; a bad one is a 400 naming it", async () => {
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const { id } = (await (await call("/api/sessions", "POST", {})).json()) as { id: string };
  const bad = await call(`/api/sessions/${id}/prompt`, "POST", { prompt: "see", images: [{ mediaType: "image/png", data: Buffer.from("text").toString("base64") }] });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(await bad.json())).toContain("images[0] is not a image/png image");
  const before = llm.chatRequests().length;
  llm.push({ text: "a dot" });
  expect((await call(`/api/sessions/${id}/prompt`, "POST", { prompt: "see", images: [{ mediaType: "image/png", data: PNG }] })).status).toBe(202);
  const sent = await waitFor("the request", () => llm.chatRequests()[before], 20_000);
  expect(sent.body.messages.at(-1).content[1]).toEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } });
});
