// `!command` through the serve API: the prompt route recognises the shell line
// (core/protocol/shell-line.ts) and runs it through the session instead of
// sending it to the model; its card is in the stored history; while a turn
// runs, a shell line sent as steering is refused (409) and never runs.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;

beforeAll(async () => {
  rig = await startApiRig("shell-line-api", { configToml: '[permissions]\nallow = ["Bash(echo:*)"]\n\n[sandbox]\nbash = "off"\n' });
});
afterAll(async () => {
  await rig?.close();
});

const newSession = async () => (await rig.call("/api/sessions", "POST", {})).body.id as string;
const history = async (id: string) => (await rig.call(`/api/sessions/${id}/history`, "GET")).body.events as { type: string; [k: string]: unknown }[];

test("POST prompt `!echo …`: 202, runs in the shell (no model request), the card is in the history, the output goes with the next prompt", async () => {
  const id = await newSession();
  const before = rig.llm.chatRequests().length;
  expect((await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "!echo api-shell-71" })).status).toBe(202);
  const result = await waitFor("the shell line's result", async () => (await history(id)).find((e) => e.type === "tool_result"), 20_000);
  expect(result).toMatchObject({ name: "bash", ok: true });
  expect(String(result.output)).toContain("api-shell-71");
  expect((await history(id)).find((e) => e.type === "tool_call")).toMatchObject({ name: "bash", input: { command: "echo api-shell-71" }, user: true });
  await waitFor("the session idle", async () => !(await rig.call(`/api/sessions/${id}/resume`, "POST")).body.busy, 20_000);
  expect(rig.llm.chatRequests()).toHaveLength(before);
  rig.llm.push({ text: "seen" });
  expect((await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "and?" })).status).toBe(202);
  const req = await waitFor("the next request", () => rig.llm.chatRequests()[before], 20_000);
  expect(req.body.messages.at(-1).content).toContain("$ echo api-shell-71\napi-shell-71");
});

test("a shell line with pictures is refused (400)", async () => {
  const id = await newSession();
  const r = await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "!echo x", images: [{ mediaType: "image/png", data: "iVBORw0KGgo=" }] });
  expect(r.status).toBe(400);
  expect(r.body.error.message).toContain("a shell line (!command) takes no pictures");
});

test("during a turn: a shell line as steering is refused (409) with a clear message and never reaches the model", async () => {
  const id = await newSession();
  const before = rig.llm.chatRequests().length;
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  rig.llm.push({ text: "held answer", until: held });
  expect((await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "work" })).status).toBe(202);
  await waitFor("the held request", () => rig.llm.chatRequests()[before], 20_000);
  const steer = await rig.call(`/api/sessions/${id}/steer`, "POST", { text: "!echo never-steered", start_if_idle: true });
  expect(steer.status).toBe(409);
  expect(steer.body.error.message).toContain("a turn is running: run the shell line when it ends");
  const prompt = await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "!echo never-prompted" });
  expect(prompt.status).toBe(409);
  release();
  await waitFor("the turn's end", async () => !(await rig.call(`/api/sessions/${id}/resume`, "POST")).body.busy, 20_000);
  expect(JSON.stringify(await history(id))).not.toContain("never-");
});
