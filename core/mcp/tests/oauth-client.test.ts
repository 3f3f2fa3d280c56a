// Pre-registered OAuth clients and the client-credentials grant: user config
// only, secrets only from $REASONIX_HOME/.env, sent only to the named issuer;
// a background 403 insufficient_scope records the wider scope and names
// `reasonix mcp auth` instead of opening a browser. Real HTTP servers on
// loopback stand in for the MCP server and the authorization servers.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { trustWorkspace } from "../../trust/report.ts";
import { resolveServers, specFrom } from "../config.ts";
import { McpConnection } from "../connection.ts";
import { FileOAuthProvider, oauthStatePath } from "../oauth.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dirs() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-mcp-oauth-client-")));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(home);
  mkdirSync(workspace);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return { home, workspace };
}

test("oauth settings count only in the user config; secrets are never written there; credentials need an issuer", () => {
  const { home, workspace } = dirs();
  writeFileSync(join(home, "config.toml"), ['[[plugins]]', 'name = "corp"', 'url = "https://mcp.corp.example/mcp"', "[plugins.oauth]", 'client_id = "rx"', 'client_secret_env = "CORP_SECRET"', 'issuer = "https://login.corp.example"', ""].join("\n"));
  writeFileSync(join(workspace, "reasonix.toml"), ['[[plugins]]', 'name = "proj"', 'url = "https://mcp.proj.example/mcp"', "[plugins.oauth]", 'client_id = "repo-picked"', ""].join("\n"));
  writeFileSync(join(workspace, ".mcp.json"), JSON.stringify({ mcpServers: { json: { url: "https://mcp.json.example/mcp", oauth: { client_id: "x", issuer: "https://evil.example" } } } }));
  trustWorkspace(workspace, home);
  const r = resolveServers(loadConfig({ cwd: workspace, home }), workspace);
  const by = (n: string) => r.servers.find((s) => s.name === n)!;
  expect(by("corp").oauth).toMatchObject({ clientId: "rx", clientSecretEnv: "CORP_SECRET", issuer: "https://login.corp.example", grant: "authorization_code" });
  expect(by("proj").oauth).toBeUndefined();
  expect(by("json").oauth).toBeUndefined();
  expect(r.problems.join("\n")).toMatch(/server "proj": oauth ignored; OAuth client settings count only in the user config/);
  expect(r.problems.join("\n")).toMatch(/server "json": oauth ignored/);

  const user = (oauth: Record<string, unknown>) => () => specFrom({ name: "x", url: "https://m.example/mcp", oauth }, "user", "/home/u/.reasonix/config.toml");
  expect(user({ client_id: "a", client_secret: "s3cret", issuer: "https://as.example" })).toThrow(/oauth\.client_secret: secrets are not written in config files/);
  expect(user({ client_id: "a", client_secret_env: "S" })).toThrow(/config\.toml: server "x" oauth\.issuer is missing/);
  expect(user({ client_id: "a", grant: "client_credentials" })).toThrow(/client_credentials grant needs client_secret_env or private_key_env/);
  expect(user({ client_id: "a", client_secret_env: "bad name", issuer: "https://as.example" })).toThrow(/oauth\.client_secret_env must be a variable name/);
  expect(user({ client_secret_env: "S", issuer: "https://as.example" })).toThrow(/oauth\.client_id is missing/);
});

/** A protected MCP endpoint whose metadata names `asUrl()` as its authorization server. */
function protectedMcp(asUrl: () => string) {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req): Response {
      const u = new URL(req.url);
      if (u.pathname.startsWith("/.well-known/oauth-protected-resource")) return Response.json({ resource: `${origin()}/mcp`, authorization_servers: [asUrl()] });
      return new Response("unauthorized", { status: 401, headers: { "www-authenticate": `Bearer resource_metadata="${origin()}/.well-known/oauth-protected-resource/mcp"` } });
    },
  });
  const origin = (): string => `http://127.0.0.1:${server.port}`;
  cleanups.push(() => server.stop(true));
  return { url: `${origin()}/mcp` };
}

/** An authorization server that records every token request it gets. */
function recordingAs() {
  const seen: { authorization: string | null; body: string }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req): Promise<Response> {
      const u = new URL(req.url);
      const issuer: string = `http://127.0.0.1:${server.port}`;
      if (u.pathname.startsWith("/.well-known/")) {
        return Response.json({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, response_types_supported: ["code"], grant_types_supported: ["client_credentials", "authorization_code"], token_endpoint_auth_methods_supported: ["client_secret_basic"] });
      }
      if (u.pathname === "/token") {
        seen.push({ authorization: req.headers.get("authorization"), body: await req.text() });
        return Response.json({ error: "invalid_client" }, { status: 401 });
      }
      return new Response("not found", { status: 404 });
    },
  });
  cleanups.push(() => server.stop(true));
  return { url: () => `http://127.0.0.1:${server.port}`, seen };
}

test("a server that names another authorization server never gets the client secret", async () => {
  const { home, workspace } = dirs();
  writeFileSync(join(home, ".env"), "CORP_SECRET=top-secret-value\n", { mode: 0o600 });
  const evil = recordingAs();
  const mcp = protectedMcp(evil.url);
  const spec = specFrom({ name: "corp", url: mcp.url, startup_timeout_seconds: 10, oauth: { client_id: "rx", client_secret_env: "CORP_SECRET", issuer: "https://login.corp.example", grant: "client_credentials" } }, "user", "config.toml");
  const conn = new McpConnection(spec, { workspace, home, config: {} });
  await conn.start();
  expect(conn.status).toBe("failed");
  expect(conn.error).toMatch(/bound to authorization server https:\/\/login\.corp\.example/);
  const leaked = evil.seen.filter((r) => (r.authorization ?? "").length > 0 || r.body.includes("top-secret"));
  expect(leaked).toEqual([]);
  await conn.close();
});

test("a missing secret names the variable and the .env file", async () => {
  const { home, workspace } = dirs();
  const spec = specFrom({ name: "corp", url: "http://127.0.0.1:9/mcp", oauth: { client_id: "rx", client_secret_env: "NOPE_SECRET", issuer: "https://as.example", grant: "client_credentials" } }, "user", "config.toml");
  const conn = new McpConnection(spec, { workspace, home, config: {} });
  await conn.start();
  expect(conn.status).toBe("failed");
  expect(conn.error).toContain(`names NOPE_SECRET, which has no value in ${join(home, ".env")}`);
  await conn.close();
});

test("a background 403 insufficient_scope records the wider scope (0600) and names reasonix mcp auth", async () => {
  const { home, workspace } = dirs();
  let calls = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (req.method !== "POST") return new Response(null, { status: 405 });
      const msg = (await req.json()) as { id?: number; method: string };
      if (msg.method === "initialize") return Response.json({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } });
      if (msg.id === undefined) return new Response(null, { status: 202 });
      if (msg.method === "tools/list") return Response.json({ jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "write", inputSchema: { type: "object" } }] } });
      calls++;
      return new Response("{}", { status: 403, headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="files:write"' } });
    },
  });
  cleanups.push(() => server.stop(true));
  const url = `http://127.0.0.1:${server.port}/mcp`;
  const file = oauthStatePath(home, url);
  new FileOAuthProvider("s", url, file, { interactive: false }).saveTokens({ access_token: "a", token_type: "Bearer", scope: "files:read" });
  const conn = new McpConnection(specFrom({ name: "s", url }, "user", "config.toml"), { workspace, home, config: {} });
  await conn.start();
  expect(conn.status).toBe("ready");
  await expect(conn.call("write", {}, { signal: new AbortController().signal })).rejects.toThrow(/needs more access \(scope "files:write"\): run reasonix mcp auth s/);
  expect(calls).toBe(1);
  // The connection itself is fine: a later sign-in is used without reconnecting.
  expect(conn.status).toBe("ready");
  expect(JSON.parse(readFileSync(file, "utf8")).stepUp).toEqual({ scope: "files:read files:write" });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  await conn.close();
});
