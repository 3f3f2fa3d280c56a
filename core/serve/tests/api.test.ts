import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { engineFactoryFromConfig, providerKeyWriter } from "../engine.ts";
import type { Envelope } from "../events.ts";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, tempDir, waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);

const TOKEN = "api-token-0123456789abcdefghijkl";

function writeConfig(home: string, llm: ScriptedServer, withKey: boolean): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home, "config.toml"),
    `default_model = "scripted"\n\n[[providers]]\nname = "scripted"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "scripted-model"\napi_key_env = "SCRIPTED_API_KEY"\n\n[[providers]]\nname = "other"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "other-model"\napi_key_env = "SCRIPTED_API_KEY"\n`,
  );
  if (withKey) writeFileSync(join(home, ".env"), "SCRIPTED_API_KEY=sk-scripted\n", { mode: 0o600 });
}

/** A server in this process, driving the real engine against a scripted model. */
async function boot(dir: string, llm: ScriptedServer, opts: { withKey?: boolean; host?: string; behindProxy?: boolean } = {}): Promise<{ server: RunningServer; workspace: string; home: string }> {
  const home = join(dir, "home");
  const workspace = join(dir, "ws");
  mkdirSync(workspace, { recursive: true });
  writeConfig(home, llm, opts.withKey ?? true);
  const server = await startServer({
    host: opts.host ?? "127.0.0.1",
    port: 0,
    auth: { mode: "token", token: TOKEN },
    behindProxy: opts.behindProxy,
    workspace,
    version: "test",
    defaultModel: "scripted",
    engineFactory: await engineFactoryFromConfig(home),
    saveProviderKey: providerKeyWriter(home),
  });
  return { server, workspace, home };
}

const authz = { authorization: `Bearer ${TOKEN}` };
function call(base: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: method === "GET" ? authz : { ...authz, "content-type": "application/json" },
    body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
  });
}

/** Collects envelopes from the WebSocket stream. */
async function listen(server: RunningServer): Promise<{ got: Envelope[]; close(): void; until(pred: (e: Envelope) => boolean, what: string): Promise<Envelope> }> {
  const ws = new WebSocket(`ws://${server.addr}/api/ws`, { headers: authz } as never);
  const got: Envelope[] = [];
  // A frame holds one envelope or a burst of them as an array.
  ws.onmessage = (m) => got.push(...[JSON.parse(String(m.data))].flat());
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("websocket failed"));
  });
  return {
    got,
    close: () => ws.close(),
    until: (pred, what) => waitFor(what, () => got.find(pred), 20_000),
  };
}

const evOf = (sessionId: string, type: string) => (e: Envelope) => "event" in e && e.sessionId === sessionId && e.event.type === type;

describe("JSON API with the real engine", () => {
  let llm: ScriptedServer;
  let dir: string;
  let server: RunningServer;
  let workspace: string;
  let base: string;

  beforeAll(async () => {
    llm = await startScriptedOpenAI([]);
    dir = tempDir("api");
    ({ server, workspace } = await boot(dir, llm));
    base = `http://${server.addr}`;
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    cleanup(dir);
  });

  test("status and models", async () => {
    const st = (await (await call(base, "GET", "/api/status")).json()) as any;
    expect(st.engine.ready).toBe(true);
    expect(st.model).toBe("scripted");
    expect(st.setup.required).toBe(false);
    const models = (await (await call(base, "GET", "/api/models")).json()) as any;
    expect(models.models.map((m: any) => m.name)).toEqual(["scripted", "other"]);
    expect(models.selected).toBe("scripted");
    expect((await call(base, "POST", "/api/model", { name: "nope" })).status).toBe(400);
    expect((await call(base, "POST", "/api/model", { name: "other" })).status).toBe(200);
    expect(((await (await call(base, "GET", "/api/models")).json()) as any).selected).toBe("other");
    expect((await call(base, "POST", "/api/model", { name: "scripted" })).status).toBe(200);
  });

  test("create → prompt → events over WebSocket → history → list", async () => {
    const live = await listen(server);
    llm.push({ reasoning: "think first", text: "Hello from the script.", delayMs: 500 });
    const created = await call(base, "POST", "/api/sessions", {});
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const res = await call(base, "POST", `/api/sessions/${id}/prompt`, { prompt: "hi there" });
    expect(res.status).toBe(202);
    // A second prompt while the first runs is refused.
    const again = await call(base, "POST", `/api/sessions/${id}/prompt`, { prompt: "again" });
    expect(again.status).toBe(409);
    const end = await live.until(evOf(id, "turn_end"), "turn_end");
    expect("event" in end && end.event.type === "turn_end" && end.event.reason).toBe("done");
    const types = live.got.filter((e) => "event" in e && e.sessionId === id).map((e) => ("event" in e ? e.event.type : ""));
    expect(types).toContain("turn_start");
    expect(types).toContain("reasoning_delta");
    expect(types.filter((t) => t === "text_delta").length).toBeGreaterThan(1);
    expect(types).toContain("assistant");
    // seq numbers strictly increase.
    const seqs = live.got.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    live.close();

    const hist = (await (await call(base, "GET", `/api/sessions/${id}/history`)).json()) as any;
    expect(hist.events.some((e: any) => e.type === "assistant" && e.text === "Hello from the script.")).toBe(true);
    const list = (await (await call(base, "GET", "/api/sessions")).json()) as any;
    expect(list.sessions.some((s: any) => s.id === id)).toBe(true);
  });

  test("approval: deny keeps the file off disk, session approve writes it", async () => {
    const live = await listen(server);
    const { id } = (await (await call(base, "POST", "/api/sessions", {})).json()) as { id: string };
    // A refusal ends the turn ("denied"): no further model call.
    llm.push({ toolCalls: [{ id: "call_deny", name: "write_file", arguments: { path: "denied.txt", content: "no\n" } }] });
    await call(base, "POST", `/api/sessions/${id}/prompt`, { prompt: "write denied.txt" });
    const req = await live.until(evOf(id, "approval_request"), "approval_request");
    const callId = "event" in req && req.event.type === "approval_request" ? req.event.callId : "";
    expect((await call(base, "POST", `/api/sessions/${id}/approvals/${callId}`, { decision: "maybe" })).status).toBe(400);
    expect((await call(base, "POST", `/api/sessions/${id}/approvals/${callId}`, { decision: "deny" })).status).toBe(200);
    const denied = await live.until(evOf(id, "turn_end"), "turn_end after deny");
    expect("event" in denied && denied.event.type === "turn_end" && denied.event.reason).toBe("denied");
    expect(existsSync(join(workspace, "denied.txt"))).toBe(false);
    expect(llm.pending()).toBe(0);

    live.got.length = 0;
    llm.push({ toolCalls: [{ id: "call_ok", name: "write_file", arguments: { path: "allowed.txt", content: "yes\n" } }] }, { text: "written" });
    await call(base, "POST", `/api/sessions/${id}/prompt`, { prompt: "write allowed.txt" });
    const req2 = await live.until(evOf(id, "approval_request"), "approval_request 2");
    const callId2 = "event" in req2 && req2.event.type === "approval_request" ? req2.event.callId : "";
    expect((await call(base, "POST", `/api/sessions/${id}/approvals/${callId2}`, { decision: "session" })).status).toBe(200);
    await live.until(evOf(id, "turn_end"), "turn_end after allow");
    expect(readFileSync(join(workspace, "allowed.txt"), "utf8")).toBe("yes\n");
    live.close();
  });

  test("cancel stops a running turn; delete removes the session", async () => {
    const live = await listen(server);
    const { id } = (await (await call(base, "POST", "/api/sessions", {})).json()) as { id: string };
    llm.push({ text: "this answer is slow", delayMs: 30_000 });
    await call(base, "POST", `/api/sessions/${id}/prompt`, { prompt: "be slow" });
    await live.until(evOf(id, "turn_start"), "turn_start");
    expect(((await (await call(base, "POST", `/api/sessions/${id}/cancel`)).json()) as any).cancelled).toBe(true);
    const end = await live.until(evOf(id, "turn_end"), "turn_end after cancel");
    expect("event" in end && end.event.type === "turn_end" && end.event.reason).toBe("cancelled");
    live.close();

    expect((await call(base, "DELETE", `/api/sessions/${id}`)).status).toBe(200);
    const list = (await (await call(base, "GET", "/api/sessions")).json()) as any;
    expect(list.sessions.some((s: any) => s.id === id)).toBe(false);
    expect((await call(base, "GET", `/api/sessions/${id}/history`)).status).toBe(404);
  });

  test("SSE replays events after Last-Event-ID", async () => {
    const seq = server.hub.lastSeq;
    const ac = new AbortController();
    const res = await fetch(`${base}/api/events`, { headers: { ...authz, "last-event-id": String(Math.max(0, seq - 3)) }, signal: ac.signal });
    const reader = res.body!.getReader();
    let text = "";
    await waitFor("replayed events", async () => {
      text += new TextDecoder().decode((await reader.read()).value);
      return (text.match(/^id: /gm) ?? []).length >= 3;
    });
    ac.abort();
    expect(text).toContain(`id: ${seq}\n`);
    expect(text).not.toContain(`id: ${seq - 3}\n`);
  });
});

test("malformed session ids are refused before they reach the store", async () => {
  const llm = await startScriptedOpenAI([]);
  const dir = tempDir("ids");
  const { server } = await boot(dir, llm);
  try {
    const base = `http://${server.addr}`;
    for (const bad of ["..%2F..%2Fetc%2Fpasswd", "...", ".hidden", "a%00b", "%E0%A4%A"]) {
      const res = await call(base, "GET", `/api/sessions/${bad}/history`);
      expect(`${bad} ${res.status}`).toBe(`${bad} 400`);
    }
    expect((await call(base, "GET", "/api/sessions/no-such-session/history")).status).toBe(404);
  } finally {
    await server.stop();
    await llm.close();
    cleanup(dir);
  }
});

test("--resume loads the session at startup; an unknown id fails startup", async () => {
  const llm = await startScriptedOpenAI([{ text: "first" }]);
  const dir = tempDir("resume");
  const first = await boot(dir, llm);
  const base = `http://${first.server.addr}`;
  const { id } = (await (await call(base, "POST", "/api/sessions", {})).json()) as { id: string };
  await call(base, "POST", `/api/sessions/${id}/prompt`, { prompt: "hello" });
  await waitFor("turn", () => llm.chatRequests().length === 1 && !first.server.sessions.isBusy(id));
  await first.server.stop();
  try {
    const again = await startServer({
      host: "127.0.0.1", port: 0, auth: { mode: "token", token: TOKEN }, workspace: first.workspace, version: "test",
      engineFactory: await engineFactoryFromConfig(first.home), resume: id,
    });
    const list = (await (await call(`http://${again.addr}`, "GET", "/api/sessions")).json()) as any;
    expect(list.sessions.find((s: any) => s.id === id)?.live).toBe(true);
    await again.stop();
    await expect(startServer({
      host: "127.0.0.1", port: 0, auth: { mode: "token", token: TOKEN }, workspace: first.workspace, version: "test",
      engineFactory: await engineFactoryFromConfig(first.home), resume: "no-such-session",
    })).rejects.toThrow(/cannot resume session "no-such-session"/);
  } finally {
    await llm.close();
    cleanup(dir);
  }
});

describe("provider setup page", () => {
  test("loopback: saving the key writes .env 0600 and rebuilds the engine in place", async () => {
    const llm = await startScriptedOpenAI([{ text: "key works" }]);
    const dir = tempDir("setup");
    const { server, home } = await boot(dir, llm, { withKey: false });
    const base = `http://${server.addr}`;
    try {
      const st = (await (await call(base, "GET", "/api/status")).json()) as any;
      expect(st.setup).toEqual({ required: true, allowed: true, provider: "scripted", apiKeyEnv: "SCRIPTED_API_KEY" });
      expect((await call(base, "POST", "/api/setup/key", { key: "line1\nline2" })).status).toBe(400);
      const saved = await call(base, "POST", "/api/setup/key", { key: "sk-from-the-browser" });
      expect(saved.status).toBe(200);
      expect(((await saved.json()) as any).saved).toBe("SCRIPTED_API_KEY");
      const env = join(home, ".env");
      expect(statSync(env).mode & 0o777).toBe(0o600);
      expect(readFileSync(env, "utf8")).toContain("SCRIPTED_API_KEY=sk-from-the-browser");
      const after = (await (await call(base, "GET", "/api/status")).json()) as any;
      expect(after.setup.required).toBe(false);
      // The rebuilt engine uses the new key.
      const { id } = (await (await call(base, "POST", "/api/sessions", {})).json()) as { id: string };
      await call(base, "POST", `/api/sessions/${id}/prompt`, { prompt: "hi" });
      await waitFor("model call", () => llm.chatRequests().length > 0);
      expect(llm.chatRequests()[0]!.headers.authorization).toBe("Bearer sk-from-the-browser");
    } finally {
      await server.stop();
      await llm.close();
      cleanup(dir);
    }
  });

  test("behind a proxy the key endpoint is disabled", async () => {
    const llm = await startScriptedOpenAI([]);
    const dir = tempDir("setup-proxy");
    const { server, home } = await boot(dir, llm, { withKey: false, behindProxy: true });
    try {
      const base = `http://${server.addr}`;
      const st = (await (await call(base, "GET", "/api/status")).json()) as any;
      expect(st.setup.allowed).toBe(false);
      expect((await call(base, "POST", "/api/setup/key", { key: "sk-x" })).status).toBe(403);
      expect(existsSync(join(home, ".env"))).toBe(false);
    } finally {
      await server.stop();
      await llm.close();
      cleanup(dir);
    }
  });
});
