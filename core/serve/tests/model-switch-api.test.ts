// Switching a session's model (POST /api/sessions/:id/model) continues the
// same conversation on another provider entry: what the user chose for the
// session — its permission mode and reasoning effort — goes with it. Losing
// the mode would let a read-only session write files while the browser still
// shows "read-only".
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;

beforeAll(async () => {
  rig = await startApiRig("model-switch", {
    configToml: `[[providers]]\nname = "t"\nkind = "openai"\nbase_url = "{{LLM}}"\nmodel = "m2"\n\n[permissions]\nmode = "auto"\n`,
  });
});
afterAll(async () => {
  await rig?.close();
});

/** Prompt and wait for the turn's end in the session's history (the prompt causes it). */
async function turn(id: string, prompt: string): Promise<string> {
  const before = (await rig.call(`/api/sessions/${id}/history`, "GET")).body.events.filter((e: any) => e.type === "turn_end").length;
  expect((await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt })).status).toBe(202);
  const ends = await waitFor("the turn's end", async () => {
    const got = (await rig.call(`/api/sessions/${id}/history`, "GET")).body.events.filter((e: any) => e.type === "turn_end");
    return got.length > before && got;
  });
  return ends.at(-1).reason;
}

test("read-only and effort low survive a model switch: the write is refused, the effort is sent", async () => {
  const { id, workspace } = (await rig.call("/api/sessions", "POST", {})).body as { id: string; workspace: string };
  expect((await rig.call(`/api/sessions/${id}/mode`, "POST", { mode: "read-only" })).status).toBe(200);
  expect((await rig.call(`/api/sessions/${id}/effort`, "POST", { effort: "low" })).status).toBe(200);

  const switched = await rig.call(`/api/sessions/${id}/model`, "POST", { name: "t" });
  expect(switched.status).toBe(200);
  const resumed = await rig.call(`/api/sessions/${id}/resume`, "POST");
  expect(resumed.body.model).toBe("t");
  expect(resumed.body.mode).toBe("read-only");

  const before = rig.llm.chatRequests().length;
  rig.llm.push({ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "planted.txt", content: "x\n" } }] }, { text: "done" });
  await turn(id, "write planted.txt");
  const events = (await rig.call(`/api/sessions/${id}/history`, "GET")).body.events;
  expect(events.find((e: any) => e.type === "tool_result" && e.callId === "call_w")?.ok).toBe(false);
  expect(existsSync(join(workspace, "planted.txt"))).toBe(false);
  const sent = rig.llm.chatRequests()[before]!;
  expect(sent.body.model).toBe("m2");
  expect(sent.body.reasoning_effort).toBe("low");
});

test("a built-in command sent as a prompt or as steering is refused, naming the endpoint; it never reaches the model", async () => {
  const { id } = (await rig.call("/api/sessions", "POST", {})).body as { id: string };
  const before = rig.llm.chatRequests().length;
  const asPrompt = await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "/model t" });
  expect(asPrompt.status).toBe(400);
  expect(asPrompt.body.error.code).toBe("builtin_command");
  expect(asPrompt.body.error.message).toBe("/model is a command, not a prompt: use POST /api/sessions/:id/model");
  const asSteer = await rig.call(`/api/sessions/${id}/steer`, "POST", { text: "/help", start_if_idle: true });
  expect(asSteer.status).toBe(400);
  expect(asSteer.body.error.message).toBe("/help is a command, not a prompt: the terminal chat runs it");
  // A custom command or a path is still a prompt.
  rig.llm.push({ text: "ok" });
  expect((await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "/usr/bin/env is where?" })).status).toBe(202);
  await waitFor("the request", () => rig.llm.chatRequests()[before]);
  expect(rig.llm.chatRequests()).toHaveLength(before + 1);
});

test("read-only and effort low survive the engine rebuild a trust approval causes", async () => {
  const { id, workspace } = (await rig.call("/api/sessions", "POST", {})).body as { id: string; workspace: string };
  expect((await rig.call(`/api/sessions/${id}/mode`, "POST", { mode: "read-only" })).status).toBe(200);
  expect((await rig.call(`/api/sessions/${id}/effort`, "POST", { effort: "low" })).status).toBe(200);
  rig.llm.push({ text: "first" });
  await turn(id, "hello");
  const approved = await rig.call("/api/trust", "POST", { inputs: {} });
  expect(approved.status).toBe(200);
  expect(approved.body.engine.ready).toBe(true);
  const resumed = await rig.call(`/api/sessions/${id}/resume`, "POST");
  expect(resumed.body.mode).toBe("read-only");

  const before = rig.llm.chatRequests().length;
  rig.llm.push({ toolCalls: [{ id: "call_r", name: "write_file", arguments: { path: "after-rebuild.txt", content: "x\n" } }] }, { text: "done" });
  await turn(id, "write after-rebuild.txt");
  expect(existsSync(join(workspace, "after-rebuild.txt"))).toBe(false);
  expect(rig.llm.chatRequests()[before]!.body.reasoning_effort).toBe("low");
});

test("a new session for a provider that is not configured is refused in the API's words, not the CLI's (issue 27)", async () => {
  const r = await rig.call("/api/sessions", "POST", { model: "gone" });
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe("unknown_model");
  expect(r.body.error.message).toBe('no provider named "gone"');
});
