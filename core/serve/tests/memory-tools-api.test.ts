// The model's memory tools through the serve API (what the web UI uses), over a
// real server and engine against the scripted model: a secret-looking fact asks
// even in auto mode (the approval request says why; denied, nothing is stored),
// auto mode stores a global preference unasked, ask mode stores a short project
// fact unasked and asks before forgetting one.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { MemoryStore } from "../../memory/store.ts";
import { pollFor } from "../../testing/fresh-wait.ts";
import { startApiRig, type ApiRig } from "./api-rig.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;
beforeAll(async () => {
  rig = await startApiRig("memory-tools");
});
afterAll(async () => {
  await rig?.close();
});

type Ev = { type: string; callId?: string; name?: string; summary?: string };

/** Send `prompt`; the turn's pending approval request (waited for) or its end. */
async function turn(id: string, prompt: string, expectApproval: boolean): Promise<Ev | undefined> {
  expect((await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt })).status).toBe(202);
  if (!expectApproval) {
    await pollFor(`the turn "${prompt}" to end`, () => rig.call(`/api/sessions/${id}/history`, "GET"), (r) => r.body.busy === false);
    return undefined;
  }
  const snap = await pollFor(`the approval request of "${prompt}"`, () => rig.call(`/api/sessions/${id}/resume`, "POST", {}), (r) => (r.body.events as Ev[]).some((e) => e.type === "approval_request"));
  return (snap.body.events as Ev[]).find((e) => e.type === "approval_request");
}

test("secret asks even in auto (denied: nothing stored); auto stores a global preference unasked; ask stores a short project fact unasked and asks to forget", async () => {
  const workspace = (await rig.call("/api/memory", "GET")).body.workspace as string;
  const store = new MemoryStore(rig.home, workspace);
  const { id } = (await rig.call("/api/sessions", "POST", {})).body as { id: string };
  const turns = () => rig.llm.chatRequests().length;

  expect((await rig.call(`/api/sessions/${id}/mode`, "POST", { mode: "auto" })).status).toBe(200);
  // A refusal ends the turn: no model call after it.
  rig.llm.push({ toolCalls: [{ name: "remember", arguments: { text: "deploy with DEPLOY_TOKEN=ghp_abcdefghijklmnopqrstu" } }] });
  const secret = (await turn(id, "remember how to deploy", true))!;
  expect([secret.name, secret.summary]).toEqual(["remember", expect.stringContaining("looks like it holds a secret (a token or key, a credential assignment (DEPLOY_TOKEN))")]);
  expect((await rig.call(`/api/sessions/${id}/approvals/${secret.callId}`, "POST", { decision: "deny" })).status).toBe(200);
  await pollFor("the refused turn to end", () => rig.call(`/api/sessions/${id}/history`, "GET"), (r) => r.body.busy === false);
  expect(store.list().facts).toEqual([]);
  expect(turns()).toBe(1);

  rig.llm.push({ toolCalls: [{ name: "remember", arguments: { text: "The user prefers pnpm over npm.", type: "user", scope: "global" } }] }, { text: "noted pnpm" });
  await turn(id, "remember that I prefer pnpm", false);
  expect(store.list().facts.map((f) => [f.text, f.type, f.scope])).toEqual([["The user prefers pnpm over npm.", "user", "global"]]);
  expect(turns()).toBe(3);

  expect((await rig.call(`/api/sessions/${id}/mode`, "POST", { mode: "ask" })).status).toBe(200);
  rig.llm.push({ toolCalls: [{ name: "remember", arguments: { text: "The integration tests need docker compose up first." } }] }, { text: "noted compose" });
  await turn(id, "remember that the integration tests need compose", false);
  const compose = store.list({ scope: "project" }).facts[0]!;
  expect([compose.text, compose.type, compose.revision]).toEqual(["The integration tests need docker compose up first.", "project", 1]);

  rig.llm.push({ toolCalls: [{ name: "forget", arguments: { id: compose.id } }] }, { text: "forgotten" });
  const forget = (await turn(id, "forget the compose fact", true))!;
  expect([forget.name, forget.summary]).toEqual(["forget", `forget fact ${compose.id}`]);
  expect(store.get(compose.id)!.archived).toBe(false);
  expect((await rig.call(`/api/sessions/${id}/approvals/${forget.callId}`, "POST", { decision: "once" })).status).toBe(200);
  await pollFor("the forget turn to end", () => rig.call(`/api/sessions/${id}/history`, "GET"), (r) => r.body.busy === false);
  expect(store.get(compose.id)!.archived).toBe(true);
});
