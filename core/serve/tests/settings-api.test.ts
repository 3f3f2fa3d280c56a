// The settings panel's API (issue 27 item 14): every write goes through the
// CLI's own editor and validation, a provider key is write-only (never in an
// answer), a project-file write is refused while the workspace is untrusted,
// errors name the form field in web wording, and the request guards hold.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import type { Envelope } from "../events.ts";
import { engineFactoryFromConfig, providerKeyWriter } from "../engine.ts";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, tempDir, waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
const TOKEN = "settings-token-0123456789abcdefghij";
const SECRET = "sk-never-shown-0123456789";
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function boot(projectToml?: string): Promise<{ server: RunningServer; home: string; ws: string; base: string; llmUrl: string; llm: ScriptedServer }> {
  const llm = await startScriptedOpenAI([], { models: ["alpha", "beta"] });
  const dir = tempDir("settings-api");
  const home = join(dir, "home");
  const ws = join(dir, "ws");
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(join(home, "config.toml"), `# my settings\ndefault_model = "scripted"\n\n[[providers]]\nname = "scripted"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "alpha"\napi_key_env = "SCRIPTED_API_KEY"\n`);
  writeFileSync(join(home, ".env"), "SCRIPTED_API_KEY=sk-scripted\n", { mode: 0o600 });
  if (projectToml !== undefined) writeFileSync(join(ws, "reasonix.toml"), projectToml);
  const server = await startServer({
    host: "127.0.0.1", port: 0, auth: { mode: "token", token: TOKEN }, workspace: ws, version: "test",
    engineFactory: await engineFactoryFromConfig(home), saveProviderKey: providerKeyWriter(home), home,
  });
  await server.sessions.build();
  cleanups.push(() => cleanup(dir), () => server.stop(), () => llm.close());
  return { server, home, ws, base: server.url.replace(/\/$/, ""), llmUrl: llm.url, llm };
}

const call = (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(method === "GET" ? {} : { "content-type": "application/json" }), ...headers },
    body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
  });

test("providers: add with a key, test, make default, replace the key — the key is never in an answer, .env stays 0600", async () => {
  const { base, home, llmUrl } = await boot();
  const texts: string[] = [];
  const send = async (path: string, body: unknown) => {
    const r = await call(base, "POST", path, body);
    const t = await r.text();
    texts.push(t);
    return { status: r.status, body: JSON.parse(t) };
  };
  const added = await send("/api/settings/providers", { preset: "custom", name: "mine", baseUrl: llmUrl, model: "beta", key: SECRET });
  expect(added.status).toBe(200);
  const mine = added.body.settings.providers.find((p: { name: string }) => p.name === "mine");
  expect(mine).toEqual({ name: "mine", kind: "openai", baseUrl: llmUrl, models: ["beta"], keyEnv: "MINE_API_KEY", hasKey: true, isDefault: false });
  const tested = await send("/api/settings/provider/test", { name: "mine" });
  expect(tested.body).toMatchObject({ ok: true, method: "models", models: ["alpha", "beta"] });
  expect((await send("/api/settings/provider/default", { name: "mine" })).body.settings.providers.find((p: { isDefault: boolean }) => p.isDefault).name).toBe("mine");
  expect((await send("/api/settings/provider/key", { name: "mine", key: `${SECRET}-2` })).body.saved).toBe("MINE_API_KEY");
  texts.push(await (await call(base, "GET", "/api/settings")).text(), await (await call(base, "GET", "/api/status")).text(), await (await call(base, "GET", "/api/models")).text());
  for (const t of texts) expect(t).not.toContain(SECRET);
  expect(readFileSync(join(home, ".env"), "utf8")).toBe(`SCRIPTED_API_KEY=sk-scripted\nMINE_API_KEY=${SECRET}-2\n`);
  expect(statSync(join(home, ".env")).mode & 0o777).toBe(0o600);
  const cfg = readFileSync(join(home, "config.toml"), "utf8");
  expect(cfg.startsWith("# my settings\n")).toBe(true);
  expect((parse(cfg) as { default_model: string }).default_model).toBe("mine");
});

test("validation: a bad field is 400 naming the field in web wording; nothing is written", async () => {
  const { base, home } = await boot();
  const before = readFileSync(join(home, "config.toml"), "utf8");
  const bad = async (path: string, body: unknown) => (await call(base, "POST", path, body)).json() as Promise<{ error: { code: string; message: string; field?: string } }>;
  const url = await bad("/api/settings/providers", { preset: "custom", name: "x", baseUrl: "not a url", model: "m" });
  expect(url.error).toEqual({ code: "invalid", field: "baseUrl", message: 'Base URL "not a url" is not a URL (e.g. https://api.example.com/v1)' });
  const model = await bad("/api/settings/providers", { preset: "custom", name: "x", baseUrl: "http://127.0.0.1:9/v1" });
  expect(model.error.field).toBe("model");
  expect(model.error.message).not.toContain("--");
  const dup = await bad("/api/settings/providers", { preset: "custom", name: "scripted", baseUrl: "http://127.0.0.1:9/v1", model: "m" });
  expect(dup.error.message).toContain("A provider named \"scripted\" already exists");
  expect(dup.error.message).not.toContain("reasonix setup");
  const rule = await bad("/api/settings/rules", { op: "add", scope: "user", kind: "allow", rule: "Bash(" });
  expect(rule.error).toMatchObject({ code: "invalid", field: "rule" });
  expect((await bad("/api/settings/mode", { mode: "reckless" })).error.message).toBe("Default mode must be one of ask, auto, plan, read-only (yolo is set with reasonix config set permissions.mode yolo)");
  // yolo stays a choice made outside the browser, as in the session's mode menu.
  expect((await bad("/api/settings/mode", { mode: "yolo" })).error.code).toBe("invalid");
  expect((await bad("/api/settings/provider/effort", { name: "scripted", effort: "huge" })).error.code).toBe("invalid");
  expect((await bad("/api/settings/theme", { theme: "neon" })).error.message).toBe("Theme must be one of auto, light, dark");
  expect((await bad("/api/settings/theme", { style: "neon" })).error.message).toBe("Style must be one of default, ocean, forest, rose, amber");
  expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(before);
});

test("rules, mode, effort and theme land in the user config as the CLI writes them, each rule with its file", async () => {
  const { base, home } = await boot();
  const ok = async (path: string, body: unknown) => {
    const r = await call(base, "POST", path, body);
    expect(r.status).toBe(200);
    return (await r.json()) as { settings: { rules: unknown[]; mode: string; theme: string; providers: { name: string; effort?: string }[] } };
  };
  const r = await ok("/api/settings/rules", { op: "add", scope: "user", kind: "deny", rule: "Bash(rm -rf *)" });
  expect(r.settings.rules).toEqual([{ rule: "Bash(rm -rf *)", kind: "deny", scope: "user", file: join(home, "config.toml"), inEffect: true }]);
  expect((await ok("/api/settings/mode", { mode: "plan" })).settings.mode).toBe("plan");
  expect((await ok("/api/settings/theme", { theme: "dark" })).settings.theme).toBe("dark");
  expect(((await ok("/api/settings/theme", { style: "forest" })).settings as unknown as { themeStyle: string }).themeStyle).toBe("forest");
  expect((await ok("/api/settings/provider/effort", { name: "scripted", effort: "high" })).settings.providers[0]!.effort).toBe("high");
  const cfg = parse(readFileSync(join(home, "config.toml"), "utf8")) as Record<string, any>;
  expect(cfg.permissions).toEqual({ deny: ["Bash(rm -rf *)"], mode: "plan" });
  // One setting for the web UI and the terminal chat's /theme ([ui]; the older [web] theme is only read).
  expect(cfg.ui).toEqual({ theme: "dark", theme_style: "forest" });
  expect(cfg.web).toBeUndefined();
  expect(cfg.providers[0].reasoning_effort).toBe("high");
  expect((await (await call(base, "GET", "/api/status")).json())).toMatchObject({ theme: "dark", themeStyle: "forest" });
  await ok("/api/settings/rules", { op: "remove", scope: "user", kind: "deny", rule: "Bash(rm -rf *)" });
  expect((parse(readFileSync(join(home, "config.toml"), "utf8")) as Record<string, any>).permissions.deny).toEqual([]);
});

test("a project-file write is refused while the workspace is untrusted; once trusted it lands and the approval follows the edit", async () => {
  const project = '[permissions]\nallow = ["Bash(make)"]\n';
  const { base, ws } = await boot(project);
  const view = await (await call(base, "GET", "/api/settings")).json();
  expect(view.trusted).toBe(false);
  expect(view.rules).toEqual([{ rule: "Bash(make)", kind: "allow", scope: "project", file: join(ws, "reasonix.toml"), inEffect: false }]);
  const refused = await call(base, "POST", "/api/settings/rules", { op: "add", scope: "project", kind: "ask", rule: "Bash(git push)" });
  expect(refused.status).toBe(403);
  expect((await refused.json()).error.code).toBe("untrusted");
  expect(readFileSync(join(ws, "reasonix.toml"), "utf8")).toBe(project);

  const report = await (await call(base, "GET", "/api/trust")).json();
  const inputs = Object.fromEntries(report.inputs.map((i: { rel: string; sha256: string }) => [i.rel, i.sha256]));
  expect((await call(base, "POST", "/api/trust", { inputs })).status).toBe(200);
  const added = await call(base, "POST", "/api/settings/rules", { op: "add", scope: "project", kind: "ask", rule: "Bash(git push)" });
  expect(added.status).toBe(200);
  const after = (await added.json()).settings;
  expect(after.trusted).toBe(true);
  expect(after.rules.map((r: { rule: string; inEffect: boolean }) => `${r.rule}:${r.inEffect}`)).toEqual(["Bash(make):true", "Bash(git push):true"]);
  expect((parse(readFileSync(join(ws, "reasonix.toml"), "utf8")) as any).permissions).toEqual({ allow: ["Bash(make)"], ask: ["Bash(git push)"] });
});

test("MCP: enable/disable edits `enabled` in the declaring file; guards: bad Origin 403, no credential 401, key and sign-in only on loopback", async () => {
  const { base, home } = await boot();
  writeFileSync(join(home, "config.toml"), `${readFileSync(join(home, "config.toml"), "utf8")}\n[[plugins]]\nname = "files"\ncommand = "true"\n`);
  const off = await call(base, "POST", "/api/settings/mcp", { name: "files", enabled: false });
  expect(off.status).toBe(200);
  expect((await off.json()).settings.mcp[0]).toMatchObject({ name: "files", enabled: false, status: "disabled", editable: true });
  expect((parse(readFileSync(join(home, "config.toml"), "utf8")) as any).plugins).toEqual([{ name: "files", command: "true", enabled: false }]);
  await call(base, "POST", "/api/settings/mcp", { name: "files", enabled: true });
  expect((parse(readFileSync(join(home, "config.toml"), "utf8")) as any).plugins).toEqual([{ name: "files", command: "true" }]);
  expect((await call(base, "POST", "/api/settings/mcp/signin", { name: "files" })).status).toBe(400);

  const before = readFileSync(join(home, "config.toml"), "utf8");
  const evil = await call(base, "POST", "/api/settings/mode", { mode: "auto" }, { origin: "http://evil.example" });
  expect(evil.status).toBe(403);
  const anon = await fetch(`${base}/api/settings/mode`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"mode":"auto"}' });
  expect(anon.status).toBe(401);
  expect((await fetch(`${base}/api/settings`)).status).toBe(401);
  expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(before);
});

test("a listener that is not loopback lists settings but never stores a key or adds a provider", async () => {
  const llm = await startScriptedOpenAI([]);
  const dir = tempDir("settings-remote");
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "config.toml"), `[[providers]]\nname = "p"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "m"\napi_key_env = "P_API_KEY"\n`);
  const server = await startServer({ host: "0.0.0.0", port: 0, auth: { mode: "token", token: TOKEN }, workspace: dir, version: "test", engineFactory: await engineFactoryFromConfig(home), saveProviderKey: providerKeyWriter(home), home });
  cleanups.push(() => cleanup(dir), () => server.stop(), () => llm.close());
  const base = `http://127.0.0.1:${server.port}`;
  expect((await (await call(base, "GET", "/api/settings")).json()).secretsAllowed).toBe(false);
  const r = await call(base, "POST", "/api/settings/provider/key", { name: "p", key: SECRET });
  expect(r.status).toBe(403);
  const add = await call(base, "POST", "/api/settings/providers", { preset: "custom", name: "q", baseUrl: llm.url, model: "m", key: SECRET });
  expect(add.status).toBe(403);
  // No new entry either, even without a key: one pointing a known preset's key variable at
  // another URL would send the stored key there (on use, or on a connection test).
  const redirect = { preset: "openai", name: "o", baseUrl: llm.url, model: "m" };
  expect((await call(base, "POST", "/api/settings/providers", redirect)).status).toBe(403);
  expect((await call(base, "POST", "/api/settings/providers/test", redirect)).status).toBe(403);
  expect(llm.requests).toEqual([]);
  expect(() => readFileSync(join(home, ".env"))).toThrow();
});

/**
 * An MCP endpoint behind OAuth with its own authorization server: metadata,
 * dynamic registration, /authorize redirecting straight back with a code,
 * /token; the endpoint answers only with the token it issued.
 */
function oauthMcp() {
  const TOK = "issued-access-token";
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req): Promise<Response> {
      const u = new URL(req.url);
      const origin = `http://127.0.0.1:${server.port}`;
      if (u.pathname.startsWith("/.well-known/oauth-protected-resource")) return Response.json({ resource: `${origin}/mcp`, authorization_servers: [origin] });
      if (u.pathname.startsWith("/.well-known/")) {
        return Response.json({ issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, registration_endpoint: `${origin}/register`, response_types_supported: ["code"], grant_types_supported: ["authorization_code"], code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["none"] });
      }
      if (u.pathname === "/register") return Response.json({ ...((await req.json()) as object), client_id: "registered-client" }, { status: 201 });
      if (u.pathname === "/authorize") return Response.redirect(`${u.searchParams.get("redirect_uri")}?code=the-code&state=${encodeURIComponent(u.searchParams.get("state") ?? "")}`, 302);
      if (u.pathname === "/token") return (await req.text()).includes("code=the-code") ? Response.json({ access_token: TOK, token_type: "Bearer", expires_in: 3600 }) : Response.json({ error: "invalid_grant" }, { status: 400 });
      if (req.headers.get("authorization") !== `Bearer ${TOK}`) return new Response("unauthorized", { status: 401, headers: { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` } });
      if (req.method !== "POST") return new Response(null, { status: 405 });
      const msg = (await req.json()) as { id?: number; method: string };
      if (msg.method === "initialize") return Response.json({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "guarded", version: "1" } } });
      if (msg.id === undefined) return new Response(null, { status: 202 });
      if (msg.method === "tools/list") return Response.json({ jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "peek", inputSchema: { type: "object" } }] } });
      return Response.json({ jsonrpc: "2.0", id: msg.id, result: {} });
    },
  });
  cleanups.push(() => server.stop(true));
  return `http://127.0.0.1:${server.port}/mcp`;
}

test("MCP sign-in: the route hands back the authorization page; following it signs in (reasonix mcp auth's flow) and the panel says so", async () => {
  const { base, home } = await boot();
  const url = oauthMcp();
  writeFileSync(join(home, "config.toml"), `${readFileSync(join(home, "config.toml"), "utf8")}\n[[plugins]]\nname = "guarded"\ntype = "http"\nurl = "${url}"\n`);
  const started = await call(base, "POST", "/api/settings/mcp/signin", { name: "guarded" });
  expect(started.status).toBe(200);
  const { url: page, state } = (await started.json()) as { url: string; state: string };
  expect(state).toBe("waiting");
  expect(page).toStartWith(url.replace("/mcp", "/authorize"));
  expect((await call(base, "POST", "/api/settings/mcp/signin", { name: "guarded" })).status).toBe(409);
  // The browser's part: the authorization page redirects to the sign-in listener on 127.0.0.1.
  const landed = await fetch(page);
  expect(await landed.text()).toContain("Signed in");
  const done = await waitFor("the sign-in to finish", async () => {
    const row = ((await (await call(base, "GET", "/api/settings")).json()) as { mcp: { name: string; signIn?: { state: string; message?: string } }[] }).mcp.find((r) => r.name === "guarded");
    return row?.signIn?.state !== "waiting" && row?.signIn;
  });
  expect(done).toEqual({ state: "done", message: "signed in (1 tool)" });
});

test("a change made while a turn runs does not cut the turn short; the engine is rebuilt once the turn ends", async () => {
  const { base, home, server, llm } = await boot();
  const got: Envelope[] = [];
  const detach = server.hub.attach({ send: (json) => void got.push(JSON.parse(json)) });
  cleanups.push(detach);
  const after = (from: number, pred: (e: Envelope) => boolean, what: string) => waitFor(what, () => got.slice(from).find(pred));
  const ev = (type: string) => (e: Envelope) => "event" in e && e.event.type === type;
  const { id } = (await (await call(base, "POST", "/api/sessions", {})).json()) as { id: string };
  llm.push({ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "w.txt", content: "x\n" } }] });
  let mark = got.length;
  expect((await call(base, "POST", `/api/sessions/${id}/prompt`, { prompt: "write w.txt" })).status).toBe(202);
  await after(mark, ev("approval_request"), "the approval request");

  mark = got.length;
  const r = await call(base, "POST", "/api/settings/mode", { mode: "plan" });
  expect(((await r.json()) as { engine: unknown }).engine).toEqual({ applied: false });
  expect((parse(readFileSync(join(home, "config.toml"), "utf8")) as any).permissions.mode).toBe("plan");
  expect((await (await call(base, "GET", "/api/settings")).json()).pending).toBe(true);
  expect(got.slice(mark).some((e) => "server" in e && e.server.type === "engine_ready")).toBe(false);

  mark = got.length;
  expect((await call(base, "POST", `/api/sessions/${id}/approvals/call_w`, { decision: "deny" })).status).toBe(200);
  const end = await after(mark, ev("turn_end"), "the turn to end");
  expect("event" in end && end.event.type === "turn_end" && end.event.reason).toBe("denied");
  await after(mark, (e) => "server" in e && e.server.type === "engine_ready", "the engine to be rebuilt after the turn");
  expect((await (await call(base, "GET", "/api/settings")).json()).pending).toBe(false);
});
