// POST /api/sessions/:id/fork and /title against the real server, engine and
// scripted model: the fork holds the turns before the chosen one, the title
// shows in every list, and every connected client hears the list changed.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;
let llm: ApiRig["llm"];
let server: ApiRig["server"];
let home: string;

beforeAll(async () => {
  rig = await startApiRig("fork-api");
  ({ llm, server, home } = rig);
});
afterAll(async () => {
  await rig?.close();
});

const call = (path: string, method: string, body?: unknown) => rig.request(path, method, body);
const get = async (path: string) => (await (await call(path, "GET")).json()) as Record<string, any>;

async function turn(id: string, prompt: string, answer: string): Promise<void> {
  llm.push({ text: answer });
  expect((await call(`/api/sessions/${id}/prompt`, "POST", { prompt })).status).toBe(202);
  await waitFor(`turn "${prompt}" to end`, async () => {
    const h = await get(`/api/sessions/${id}/history`);
    return !h.busy && h.events.some((e: any) => e.type === "assistant" && e.text === answer);
  });
}

/** Server notices from now on (what every open tab receives). */
function notices(): { seen: Record<string, any>[]; stop: () => void } {
  const seen: Record<string, any>[] = [];
  const stop = server.hub.attach({ send: (data) => { const env = JSON.parse(data); if (env.server) seen.push(env.server); } }, server.hub.lastSeq);
  return { seen, stop };
}

test("fork from a turn: a new session with the turns before it, linked to the original, which is untouched", async () => {
  const { id } = (await (await call("/api/sessions", "POST", {})).json()) as { id: string };
  await turn(id, "one", "one done");
  await turn(id, "two", "two done");
  const logPath = join(home, "sessions", `${id}.jsonl`);
  const before = readFileSync(logPath, "utf8");
  const n = notices();

  const res = await call(`/api/sessions/${id}/fork`, "POST", { turn: 2 });
  expect(res.status).toBe(201);
  const made = (await res.json()) as { id: string; from: string; turn: number };
  expect(made).toMatchObject({ from: id, turn: 2 });
  expect(made.id).not.toBe(id);
  const h = await get(`/api/sessions/${made.id}/history`);
  expect(h.events.filter((e: any) => e.type === "turn_start").map((e: any) => e.prompt)).toEqual(["one"]);
  const row = (await get("/api/sessions")).sessions.find((s: any) => s.id === made.id);
  expect(row).toMatchObject({ title: "one (fork)", forkedFrom: { id, turn: 2 }, turns: 1 });
  expect(readFileSync(logPath, "utf8")).toBe(before);
  expect(n.seen.some((x) => x.type === "sessions_changed")).toBe(true);
  n.stop();

  // The fork runs its own turns.
  await turn(made.id, "two, again", "another answer");
  expect(llm.chatRequests().at(-1)!.body.messages.slice(1).map((m: any) => m.content)).toEqual(["one", "one done", "two, again"]);

  // Without a turn: the whole conversation.
  const all = (await (await call(`/api/sessions/${id}/fork`, "POST", {})).json()) as { id: string; turn?: number };
  expect(all.turn).toBeUndefined();
  expect((await get(`/api/sessions/${all.id}/history`)).events.filter((e: any) => e.type === "turn_start")).toHaveLength(2);
});

test("fork refuses a turn that is not there, a malformed turn and an unknown session", async () => {
  const { id } = (await (await call("/api/sessions", "POST", {})).json()) as { id: string };
  await turn(id, "only", "ok");
  const missing = await call(`/api/sessions/${id}/fork`, "POST", { turn: 9 });
  expect(missing.status).toBe(400);
  expect(await missing.json()).toMatchObject({ error: { code: "fork_turn" } });
  expect((await call(`/api/sessions/${id}/fork`, "POST", { turn: "2" })).status).toBe(400);
  expect((await call(`/api/sessions/${id}/fork`, "POST", { turn: 0 })).status).toBe(400);
  expect((await call(`/api/sessions/nope-123/fork`, "POST", {})).status).toBe(404);
});

test("rename: the title shows in the list for everyone, \"\" goes back to the first prompt, bad titles are refused", async () => {
  const { id } = (await (await call("/api/sessions", "POST", {})).json()) as { id: string };
  await turn(id, "please fix the login", "fixed");
  const n = notices();
  const res = await call(`/api/sessions/${id}/title`, "POST", { title: " Login\tfix " });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ title: "Login fix" });
  expect((await get("/api/sessions")).sessions.find((s: any) => s.id === id).title).toBe("Login fix");
  expect((await get(`/api/sessions/${id}`)).title).toBe("Login fix");
  await waitFor("a sessions_changed notice", () => n.seen.some((x) => x.type === "sessions_changed"));
  n.stop();

  expect(await (await call(`/api/sessions/${id}/title`, "POST", { title: "" })).json()).toEqual({ title: "please fix the login" });
  const long = await call(`/api/sessions/${id}/title`, "POST", { title: "x".repeat(200) });
  expect(long.status).toBe(400);
  expect(await long.json()).toMatchObject({ error: { code: "bad_title", message: "the title is 200 characters; at most 120" } });
  expect((await call(`/api/sessions/${id}/title`, "POST", {})).status).toBe(400);
  expect((await call(`/api/sessions/${id}/title`, "POST", { title: 5 })).status).toBe(400);
  expect((await call(`/api/sessions/nope-123/title`, "POST", { title: "x" })).status).toBe(404);
});
