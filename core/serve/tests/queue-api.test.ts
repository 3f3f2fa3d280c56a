// The queue over the serve API (core/serve/routes/queue.ts) on a real server
// and engine (token auth, loopback HTTP, the scripted model): prompts queued
// while a turn runs start in order after it; list, show, edit, move, delete,
// pause and resume; limits and bad input answer with a code naming them; the
// session routes' guards apply (no token, a malformed id) — and the same
// /queue through the session command route (the one dispatcher).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { pollFor } from "../../testing/fresh-wait.ts";
import { startApiRig, type ApiRig } from "./api-rig.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;
beforeAll(async () => {
  rig = await startApiRig("queue-api");
});
afterAll(async () => {
  await rig?.close();
});

const lastUser = (i: number) => rig.llm.chatRequests()[i]!.body.messages.filter((m: any) => m.role === "user").at(-1).content;

test("queued while a turn runs, sent in order after it; edit, move, delete, pause and resume", async () => {
  const { id } = (await rig.call("/api/sessions", "POST", {})).body as { id: string };
  const q = `/api/sessions/${id}/queue`;
  const gate = Promise.withResolvers<void>();
  rig.llm.push({ text: "held answer", until: gate.promise }, { text: "answer two" }, { text: "answer three" });
  expect((await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "first" })).status).toBe(202);
  await pollFor("the held request", () => rig.llm.chatRequests().length, (n) => n >= 1);
  for (const text of ["queued a", "queued b", "queued c"]) expect((await rig.call(q, "POST", { text })).status).toBe(201);
  let v = (await rig.call(q, "GET")).body.queue;
  expect(v.items.map((i: any) => [i.n, i.preview])).toEqual([[1, "queued a"], [2, "queued b"], [3, "queued c"]]);
  expect(v.paused).toBe(false);
  expect((await rig.call(`${q}/2`, "GET")).body).toMatchObject({ n: 2, text: "queued b" });
  expect((await rig.call(`${q}/1`, "POST", { action: "edit", text: "queued a, edited" })).body.queue.items[0].preview).toBe("queued a, edited");
  expect((await rig.call(`${q}/3`, "POST", { action: "move", to: 1 })).body.queue.items.map((i: any) => i.preview)).toEqual(["queued c", "queued a, edited", "queued b"]);
  expect((await rig.call(`${q}/3`, "POST", { action: "delete" })).body.queue.items).toHaveLength(2);
  // Paused: the turn's end sends nothing.
  expect((await rig.call(q, "POST", { action: "pause" })).body.queue.paused).toBe(true);
  gate.resolve();
  await pollFor("the first turn over", () => rig.call(`/api/sessions/${id}/history`, "GET"), (r) => r.body.busy === false);
  expect(rig.llm.chatRequests()).toHaveLength(1);
  expect((await rig.call(q, "GET")).body.queue.items).toHaveLength(2);
  // Resume: the head starts now, the next after it.
  expect((await rig.call(q, "POST", { action: "resume" })).body.started).toBe(true);
  await pollFor("both queued prompts sent", () => rig.llm.chatRequests().length, (n) => n === 3);
  expect([lastUser(1), lastUser(2)]).toEqual(["queued c", "queued a, edited"]);
  v = (await pollFor("the queue empty and idle", () => rig.call(q, "GET"), (r) => !r.body.queue.running && r.body.queue.items.length === 0)).body.queue;
  expect(v.paused).toBe(false);
  await pollFor("the last turn over", () => rig.call(`/api/sessions/${id}/history`, "GET"), (r) => r.body.busy === false);
});

test("errors: limits, a missing item, bad actions, a command as text; the guards of the session routes", async () => {
  const { id } = (await rig.call("/api/sessions", "POST", {})).body as { id: string };
  const q = `/api/sessions/${id}/queue`;
  await rig.call(q, "POST", { action: "pause" });
  for (let i = 0; i < 64; i++) expect((await rig.call(q, "POST", { text: `p${i}` })).status).toBe(201);
  const full = await rig.call(q, "POST", { text: "one more" });
  expect([full.status, full.body.error?.code ?? full.body.code]).toEqual([413, "queue_full"]);
  expect(JSON.stringify(full.body)).toContain("at most 64 prompts");
  expect((await rig.call(q, "POST", { action: "clear" })).body.cleared).toBe(64);
  const missing = await rig.call(`${q}/5`, "GET");
  expect(missing.status).toBe(404);
  expect((await rig.call(`${q}/0`, "GET")).status).toBe(400);
  expect((await rig.call(`${q}/1`, "POST", { action: "fly" })).status).toBe(400);
  expect((await rig.call(q, "POST", { action: "retry" })).status).toBe(409);
  const cmd = await rig.call(q, "POST", { text: "/help" });
  expect([cmd.status, JSON.stringify(cmd.body)]).toEqual([400, expect.stringContaining("builtin_command")]);
  // The guards: no token, a malformed session id.
  expect((await fetch(`http://${rig.server.addr}${q}`)).status).toBe(401);
  expect((await rig.call("/api/sessions/..%2Fx/queue", "GET")).status).toBe(400);
  // The same queue through the command route (the one dispatcher).
  await rig.call(q, "POST", { text: "via api" });
  const r = (await rig.call(`/api/sessions/${id}/command`, "POST", { name: "queue", arg: "list" })).body;
  expect(r.ok).toBe(true);
  expect(r.text).toContain("  1. via api");
  expect(r.data.queue.paused).toBe(true);
});

test("pictures queued with a prompt: checked as a prompt's, named in the list, served by position (and item id), dropped by an edit that drops the token", async () => {
  const { id } = (await rig.call("/api/sessions", "POST", {})).body as { id: string };
  const q = `/api/sessions/${id}/queue`;
  await rig.call(q, "POST", { action: "pause" });
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const png = { mediaType: "image/png", data: PNG, name: "image #1" };
  // The limits of a prompt's pictures: a wrong type and one too many are refused, nothing queued.
  const wrong = await rig.call(q, "POST", { text: "[image #1]", images: [{ ...png, mediaType: "image/gif" }] });
  expect([wrong.status, wrong.body.error.code]).toEqual([400, "bad_image"]);
  const many = await rig.call(q, "POST", { text: "[image #1]", images: Array.from({ length: 11 }, () => png) });
  expect([many.status, many.body.error.code]).toEqual([400, "bad_request"]);
  expect((await rig.call(q, "GET")).body.queue.items).toEqual([]);
  const added = await rig.call(q, "POST", { text: "look [image #1]", images: [png] });
  expect(added.status).toBe(201);
  const item = added.body.queue.items[0];
  expect([item.images, item.bytes]).toEqual([["image #1"], Buffer.byteLength("look [image #1]") + Buffer.from(PNG, "base64").length]);
  const got = await rig.request(`${q}/1/images/1?id=${item.id}`, "GET");
  expect([got.status, got.headers.get("content-type"), got.headers.get("x-content-type-options")]).toEqual([200, "image/png", "nosniff"]);
  expect(Buffer.from(await got.arrayBuffer()).toString("base64")).toBe(PNG);
  // Another item at that position, or no such picture: 404.
  expect((await rig.call(`${q}/1/images/1?id=00000000`, "GET")).status).toBe(404);
  expect((await rig.call(`${q}/1/images/2`, "GET")).status).toBe(404);
  expect((await rig.call(`${q}/2/images/1`, "GET")).status).toBe(404);
  // An edit without the token: the picture goes.
  const edited = (await rig.call(`${q}/1`, "POST", { action: "edit", text: "look, no picture" })).body.queue.items[0];
  expect(edited.images).toBeUndefined();
  expect((await rig.call(`${q}/1/images/1`, "GET")).status).toBe(404);
  await rig.call(q, "POST", { action: "clear" });
});
