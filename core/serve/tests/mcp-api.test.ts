// The serve API behind the web UI's "Browse registry" and "Import"
// (core/serve/routes/mcp.ts), against a real `reasonix serve` child and the
// MCP Registry fixture on loopback: search with paging, a 500, a hang, the
// cache during an outage; the install plan (required, secret, manual setup);
// install of an npm entry that really starts through the stand-in npx; a
// secret that never comes back in any answer or log; imports from Claude Code
// and Cursor files (a workspace's file only when chosen); and the Host and
// Origin checks on these routes.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { everythingVersion as version, INLINE_SECRET as INLINE, mcpSkip, startMcpRig, type McpRig } from "./mcp-rig.ts";

setDefaultTimeout(180_000);

const skip = mcpSkip("MCP registry/import API tests");
const SECRET = "tok-SECRET-4242-never-echoed";

let rig: McpRig;
let TOKEN: string;
let s: McpRig["s"];
let reg: McpRig["reg"];
let workspace: string;
let home: string;
let userHome: string;
/** Every answer's body, to check no secret ever comes back. */
const bodies: string[] = [];

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const r = await fetch(`${s.base}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers }, body: method === "GET" ? undefined : JSON.stringify(body ?? {}) });
  const text = await r.text();
  bodies.push(text);
  return { status: r.status, body: JSON.parse(text) };
}

beforeAll(async () => {
  if (skip) return;
  rig = await startMcpRig();
  ({ token: TOKEN, s, reg, workspace, home, userHome } = rig);
});

afterAll(async () => {
  await rig?.close();
});

describe.skipIf(skip)("serve API: MCP registry and import", () => {
  test("search pages with a cursor; a 500 is 502 and a hang 504, both saying why", async () => {
    // Starting the server (and its engine) asked the registry nothing.
    expect(reg.requests).toEqual([]);
    const first = await call("GET", "/api/mcp/registry?q=filler&limit=2");
    expect(first.status).toBe(200);
    expect(first.body.servers.map((x: { name: string }) => x.name)).toEqual(["com.example/filler-1", "com.example/filler-2"]);
    expect(first.body.servers[0]).toMatchObject({ version: "0.1.0", kinds: ["remote streamable-http"], description: "Filler server 1" });
    expect(first.body.stale).toBeNull();
    const next = await call("GET", `/api/mcp/registry?q=filler&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(next.body.servers.map((x: { name: string }) => x.name)).toEqual(["com.example/filler-3", "com.example/filler-4"]);

    const boom = await call("GET", "/api/mcp/registry?q=boom");
    expect(boom.status).toBe(502);
    expect(boom.body.error).toMatchObject({ code: "registry_error" });
    expect(boom.body.error.message).toContain("answered HTTP 500: database unavailable");
    const slow = await call("GET", "/api/mcp/registry?q=slow&timeout=1");
    expect(slow.status).toBe(504);
    expect(slow.body.error.message).toContain("did not answer within 1 s");
    expect((await call("GET", "/api/mcp/registry?limit=500")).status).toBe(400);
  });

  test("the install plan names the values an entry needs (required, secret); an entry with no installable source is manual setup with the reason", async () => {
    const p = await call("GET", `/api/mcp/registry/plan?name=${encodeURIComponent("com.example/needs-secret")}`);
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ name: "needs-secret", taken: false, manual: null, source: `npm @modelcontextprotocol/server-everything@${version}` });
    expect(p.body.inputs).toEqual([{ key: "EXAMPLE_TOKEN", kind: "env", description: "API token", required: true, secret: true, default: null, choices: null }]);
    const m = await call("GET", `/api/mcp/registry/plan?name=${encodeURIComponent("com.example/nuget-only")}`);
    expect(m.body.manual).toContain("offers no source Reasonix can install (nuget)");
    expect(m.body.server.websiteUrl).toBe("https://nuget.example/tool");
    const none = await call("GET", `/api/mcp/registry/plan?name=${encodeURIComponent("com.example/nope")}`);
    expect(none.status).toBe(404);
    expect(none.body.error.message).toContain('has no server "com.example/nope"');
    const broken = await call("GET", `/api/mcp/registry/plan?name=${encodeURIComponent("com.example/broken-entry")}`);
    expect(broken.status).toBe(502);
    expect(broken.body.error.message).toContain("packages[0].identifier is missing");
  });

  test("install without a required value writes nothing; with it the secret goes to .env (0600) as ${VAR}, the npm entry starts through npx, and the secret is in no answer or log", async () => {
    const before = readFileSync(join(home, "config.toml"), "utf8");
    const missing = await call("POST", "/api/mcp/registry/install", { name: "com.example/needs-secret", values: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toEqual({ code: "missing_values", message: "com.example/needs-secret was not installed: it needs EXAMPLE_TOKEN (env)" });
    const bad = await call("POST", "/api/mcp/registry/install", { name: "com.example/needs-secret", as: "bad name", values: { env: { EXAMPLE_TOKEN: SECRET } } });
    expect(bad.status).toBe(400);
    expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(before);
    expect(readFileSync(join(home, ".env"), "utf8")).not.toContain(SECRET);

    const r = await call("POST", "/api/mcp/registry/install", { name: "com.example/needs-secret", values: { env: { EXAMPLE_TOKEN: SECRET } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ installed: true, name: "needs-secret", registryName: "com.example/needs-secret", secrets: ["MCP_NEEDS_SECRET_EXAMPLE_TOKEN"] });
    expect(r.body.test).toMatchObject({ ok: true, status: "ready" });
    expect(r.body.test.tools).toContainEqual({ name: "mcp__needs-secret__echo", raw: "echo", readOnly: true });
    expect(r.body.test.prompts.length).toBeGreaterThan(0);
    expect(r.body.test.resources).toBeArray();
    expect(readFileSync(join(workspace, "npx-ran.txt"), "utf8")).toBe(`-y @modelcontextprotocol/server-everything@${version} stdio\n`);
    expect(readFileSync(join(home, ".env"), "utf8")).toContain(`MCP_NEEDS_SECRET_EXAMPLE_TOKEN=${SECRET}`);
    expect(statSync(join(home, ".env")).mode & 0o777).toBe(0o600);
    const config = readFileSync(join(home, "config.toml"), "utf8");
    expect(config).toContain('env = { EXAMPLE_TOKEN = "${MCP_NEEDS_SECRET_EXAMPLE_TOKEN}" }');
    expect(config).not.toContain(SECRET);

    // The engine was rebuilt: a new session has the server.
    expect(r.body.engine).toEqual({ reloaded: true, ready: true, error: null });
    const sess = await call("POST", "/api/sessions", {});
    expect(sess.status).toBe(201);
    const mcp = await call("POST", `/api/sessions/${sess.body.id}/command`, { name: "mcp" });
    expect(mcp.body.text).toContain("needs-secret [stdio, user]");

    const again = await call("POST", "/api/mcp/registry/install", { name: "com.example/needs-secret", values: { env: { EXAMPLE_TOKEN: SECRET } } });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toContain("already exists");
    expect((await call("GET", `/api/mcp/registry/plan?name=${encodeURIComponent("com.example/needs-secret")}`)).body.taken).toBe(true);
    const badValue = await call("POST", "/api/mcp/registry/install", { name: "com.example/needs-secret", as: "x2", values: { env: { EXAMPLE_TOKEN: `${SECRET}\nPATH=/evil` } } });
    expect(badValue.status).toBe(400);
    expect(badValue.body.error.message).toBe("values.env.EXAMPLE_TOKEN must be a single-line string");

    for (const b of bodies) expect(b).not.toContain(SECRET);
    expect(s.stdout() + s.stderr()).not.toContain(SECRET);
  });

  test("a server that fails and prints its secret argument: the report says it failed, with the secret hidden", async () => {
    const ARG_SECRET = "arg-secret-9911-do-not-print";
    reg.entries.push({ server: { name: "com.example/secret-arg", description: "Takes its token as an argument", version: "1.0.0", packages: [{ registryType: "npm", identifier: "@modelcontextprotocol/server-everything", version, transport: { type: "stdio" }, packageArguments: [{ type: "named", name: "--token", isRequired: true, isSecret: true }] }] } });
    const r = await call("POST", "/api/mcp/registry/install", { name: "com.example/secret-arg", values: { arg: { token: ARG_SECRET } } });
    expect(r.status).toBe(200);
    expect(r.body.test.ok).toBe(false);
    // The stand-in npx refuses the unexpected command line and prints it (with the expanded secret) on stderr.
    expect(`${r.body.test.error}\n${r.body.test.stderr ?? ""}`).toContain(`npx shim: unexpected arguments: -y @modelcontextprotocol/server-everything@${version} --token=[secret]`);
    for (const b of bodies) expect(b).not.toContain(ARG_SECRET);
    expect(s.stdout() + s.stderr()).not.toContain(ARG_SECRET);
  });

  test("a one-character secret: the answer stays intact (no letter of it replaced everywhere), and the value shows nowhere it stands as a value", async () => {
    // "e" is in nearly every word of the answer: the name, the target, the tool names, the shim's message.
    const r = await call("POST", "/api/mcp/registry/install", { name: "com.example/needs-secret", as: "tiny-secret", values: { env: { EXAMPLE_TOKEN: "e" } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ installed: true, name: "tiny-secret", registryName: "com.example/needs-secret", source: `npm @modelcontextprotocol/server-everything@${version}`, secrets: ["MCP_TINY_SECRET_EXAMPLE_TOKEN"] });
    expect(r.body.target).toBe(`npx -y @modelcontextprotocol/server-everything@${version} stdio`);
    expect(r.body.file).toBe(join(home, "config.toml"));
    expect(r.body.test).toMatchObject({ ok: true, status: "ready" });
    expect(r.body.test.tools).toContainEqual({ name: "mcp__tiny-secret__echo", raw: "echo", readOnly: true });
    expect(JSON.stringify(r.body)).not.toContain("[secret]");
    // Where it is stored: .env only; the config and the answer name it by reference.
    expect(readFileSync(join(home, ".env"), "utf8")).toContain("MCP_TINY_SECRET_EXAMPLE_TOKEN=e\n");
    expect(readFileSync(join(home, "config.toml"), "utf8")).toContain('env = { EXAMPLE_TOKEN = "${MCP_TINY_SECRET_EXAMPLE_TOKEN}" }');

    // A server that prints it back as a value (`--token=e`): hidden there, the rest of the message as it was.
    reg.entries.push({ server: { name: "com.example/tiny-arg", description: "Takes its token as an argument", version: "1.0.0", packages: [{ registryType: "npm", identifier: "@modelcontextprotocol/server-everything", version, transport: { type: "stdio" }, packageArguments: [{ type: "named", name: "--token", isRequired: true, isSecret: true }] }] } });
    const a = await call("POST", "/api/mcp/registry/install", { name: "com.example/tiny-arg", values: { arg: { token: "e" } } });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ installed: true, name: "tiny-arg", registryName: "com.example/tiny-arg" });
    expect(a.body.test.ok).toBe(false);
    const said = `${a.body.test.error}\n${a.body.test.stderr ?? ""}`;
    expect(said).toContain(`npx shim: unexpected arguments: -y @modelcontextprotocol/server-everything@${version} --token=[secret]`);
    expect(said).not.toContain("--token=e");
  });

  test("a remote URL's {variables} are asked like other values: the plan lists them, install fills them in", async () => {
    reg.entries.push({ server: { name: "com.example/tenant-remote", description: "Per-tenant endpoint", version: "1.0.0", remotes: [{ type: "sse", url: "https://{tenant}.tenant.example/sse", variables: { tenant: { description: "your tenant id", isRequired: true } } }] } });
    const p = await call("GET", `/api/mcp/registry/plan?name=${encodeURIComponent("com.example/tenant-remote")}`);
    expect(p.body).toMatchObject({ manual: null, source: "remote sse https://{tenant}.tenant.example/sse" });
    expect(p.body.inputs).toEqual([{ key: "tenant", kind: "variable", description: "your tenant id", required: true, secret: false, default: null, choices: null }]);
    const r = await call("POST", "/api/mcp/registry/install", { name: "com.example/tenant-remote", values: { variable: { tenant: "acme-7" } }, test: false });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ installed: true, name: "tenant-remote", target: "https://acme-7.tenant.example/sse" });
    expect(readFileSync(join(home, "config.toml"), "utf8")).toContain('url = "https://acme-7.tenant.example/sse"');
  });

  test("import lists the Claude Code and Cursor servers and the workspace's own file marked as such; importing the chosen ones moves the inline secret to .env and starts them", async () => {
    const list = await call("GET", "/api/mcp/import");
    expect(list.status).toBe(200);
    const byName = Object.fromEntries(list.body.servers.map((x: { name: string }) => [x.name, x]));
    expect(Object.keys(byName).sort()).toEqual(["claude-everything", "cursor-everything", "ws-tool"]);
    expect(byName["claude-everything"]).toMatchObject({ agent: "Claude Code", type: "stdio", project: false, file: join(userHome, ".claude.json") });
    expect(byName["cursor-everything"]).toMatchObject({ agent: "Cursor", secrets: ["MCP_CURSOR_EVERYTHING_EVERYTHING_API_KEY"], project: false });
    expect(byName["ws-tool"]).toMatchObject({ project: true, file: join(workspace, ".mcp.json") });
    expect(JSON.stringify(list.body)).not.toContain(INLINE);

    expect((await call("POST", "/api/mcp/import", { ids: ["0000000000000000"] })).status).toBe(409);
    const r = await call("POST", "/api/mcp/import", { ids: [byName["claude-everything"].id, byName["cursor-everything"].id] });
    expect(r.status).toBe(200);
    expect(r.body.imported.map((x: { name: string; imported: boolean; test: { ok: boolean } }) => [x.name, x.imported, x.test.ok])).toEqual([
      ["claude-everything", true, true],
      ["cursor-everything", true, true],
    ]);
    expect(r.body.imported[1].test.tools).toContainEqual({ name: "mcp__cursor-everything__echo", raw: "echo", readOnly: true });
    const config = readFileSync(join(home, "config.toml"), "utf8");
    expect(config).toContain('name = "cursor-everything"');
    expect(config).not.toContain("ws-tool");
    expect(config).not.toContain(INLINE);
    expect(readFileSync(join(home, ".env"), "utf8")).toContain(`MCP_CURSOR_EVERYTHING_EVERYTHING_API_KEY=${INLINE}`);
    for (const b of bodies) expect(b).not.toContain(INLINE);

    const after = await call("GET", "/api/mcp/import");
    expect(after.body.servers.find((x: { name: string }) => x.name === "claude-everything").skip).toBe("already in your config");
  });

  test("outage: the registry gone, a search made before comes back from the cache marked stale; one never made says it cannot reach it", async () => {
    const fresh = await call("GET", "/api/mcp/registry?q=filler&limit=2");
    expect(fresh.body.stale).toBeNull();
    reg.close();
    const stale = await call("GET", "/api/mcp/registry?q=filler&limit=2");
    expect(stale.status).toBe(200);
    expect(stale.body.servers).toHaveLength(2);
    expect(stale.body.stale.error).toContain("cannot reach the MCP Registry");
    expect(stale.body.stale.fetchedAt).toBeString();
    // An entry read before: its plan and its install come from the saved answer, and say so.
    const plan = await call("GET", `/api/mcp/registry/plan?name=${encodeURIComponent("com.example/needs-secret")}`);
    expect(plan.body.stale.error).toContain("cannot reach the MCP Registry");
    const inst = await call("POST", "/api/mcp/registry/install", { name: "com.example/needs-secret", as: "needs-secret-outage", values: { env: { EXAMPLE_TOKEN: "outage-token-3141" } }, test: false });
    expect(inst.status).toBe(200);
    expect(inst.body).toMatchObject({ installed: true, name: "needs-secret-outage", stale: { error: expect.stringContaining("cannot reach the MCP Registry"), fetchedAt: expect.any(String) } });
    const never = await call("GET", "/api/mcp/registry?q=never-asked");
    expect(never.status).toBe(502);
    expect(never.body.error.message).toContain("cannot reach the MCP Registry");
  });

  test("a foreign Host is refused before anything runs, a cross-site install is refused, and no credential is 401", async () => {
    const host = await fetch(`${s.base}/api/mcp/registry?q=filler`, { headers: { authorization: `Bearer ${TOKEN}`, host: "evil.example" } });
    expect(host.status).toBe(421);
    const origin = await fetch(`${s.base}/api/mcp/registry/install`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", origin: "http://evil.example" }, body: JSON.stringify({ name: "com.example/needs-secret", as: "cross", values: { env: { EXAMPLE_TOKEN: "x" } } }) });
    expect(origin.status).toBe(403);
    const importCross = await fetch(`${s.base}/api/mcp/import`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", origin: "http://evil.example" }, body: JSON.stringify({ ids: ["x"] }) });
    expect(importCross.status).toBe(403);
    const anon = await fetch(`${s.base}/api/mcp/import`);
    expect(anon.status).toBe(401);
    expect(readFileSync(join(home, "config.toml"), "utf8")).not.toContain("cross");
  });
});
