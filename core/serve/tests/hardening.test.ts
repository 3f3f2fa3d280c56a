// Attacks on the HTTP surface itself: another workspace's sessions, malformed
// %-escapes, and a password guesser rotating its loopback source address.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { createEngine } from "../../engine/index.ts";
import { homePaths } from "../../home.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { clientKey } from "../addr.ts";
import { engineFactoryFromConfig } from "../engine.ts";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, tempDir } from "./helpers.ts";

setDefaultTimeout(60_000);

const TOKEN = "hardening-token-0123456789abcdefgh";
const authz = { authorization: `Bearer ${TOKEN}` };

function call(base: string, method: string, path: string, body?: unknown): Promise<Response> {
  const write = method !== "GET" && method !== "HEAD";
  return fetch(`${base}${path}`, {
    method,
    headers: write ? { ...authz, "content-type": "application/json" } : authz,
    body: write ? JSON.stringify(body ?? {}) : undefined,
  });
}

describe("a session of another workspace", () => {
  let llm: ScriptedServer;
  let dir: string;
  let home: string;
  let secretWs: string;
  let foreignId: string;
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    llm = await startScriptedOpenAI([]);
    dir = tempDir("foreign");
    home = join(dir, "home");
    const ws = join(dir, "ws");
    // The path must not leak: give it a name that is easy to search for.
    secretWs = join(dir, "the-other-secret-project");
    for (const d of [home, ws, secretWs]) mkdirSync(d, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(home, "config.toml"),
      `default_model = "scripted"\n\n[[providers]]\nname = "scripted"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "m"\napi_key_env = "SCRIPTED_API_KEY"\n`,
    );
    writeFileSync(join(home, ".env"), "SCRIPTED_API_KEY=sk-x\n", { mode: 0o600 });
    // A session recorded by `reasonix run` in the other project, sharing this home.
    const other = createEngine({ workspace: secretWs, home });
    const s = await other.createSession();
    foreignId = s.id;
    await other.close();
    server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "token", token: TOKEN }, workspace: ws, version: "test", engineFactory: await engineFactoryFromConfig(home) });
    base = `http://${server.addr}`;
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    cleanup(dir);
  });

  const logOf = (id: string) => join(homePaths(home).sessions, `${id}.jsonl`);

  test("GET answers 404 not_found without the other workspace's path", async () => {
    const res = await call(base, "GET", `/api/sessions/${foreignId}`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as any;
    expect(body).toEqual({ error: { code: "not_found", message: `no session "${foreignId}"` } });
  });

  test("DELETE is refused exactly like GET, and the session stays on disk", async () => {
    const get = await call(base, "GET", `/api/sessions/${foreignId}`);
    const del = await call(base, "DELETE", `/api/sessions/${foreignId}`);
    const text = await del.text();
    expect(del.status).toBe(get.status);
    expect(JSON.parse(text)).toEqual(await get.json());
    expect(text).not.toContain("the-other-secret-project");
    expect(existsSync(logOf(foreignId))).toBe(true);
  });

  test("history, resume and prompt refuse it the same way, naming no path", async () => {
    for (const [method, path] of [["GET", "history"], ["POST", "resume"], ["POST", "prompt"]] as const) {
      const res = await call(base, method, `/api/sessions/${foreignId}/${path}`, { prompt: "hi" });
      const text = await res.text();
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 404`);
      expect(JSON.parse(text)).toEqual({ error: { code: "not_found", message: `no session "${foreignId}"` } });
      expect(text).not.toContain("the-other-secret-project");
    }
  });

  test("a foreign session looks the same as one that does not exist", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await call(base, method, "/api/sessions/20990101-000000-nosuch");
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).error.code).toBe("not_found");
    }
  });

  test("the engine itself refuses to delete another workspace's session", async () => {
    const engine = createEngine({ workspace: join(dir, "ws"), home });
    try {
      await expect(engine.deleteSession(foreignId)).rejects.toThrow(/belongs to another workspace/);
    } finally {
      await engine.close();
    }
    expect(existsSync(logOf(foreignId))).toBe(true);
  });
});

/** Send a raw request line (fetch would normalise or refuse the path) and return the status code. */
function rawStatus(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1");
    let out = "";
    sock.on("data", (d: Buffer) => {
      out += d.toString("latin1");
      if (out.includes("\r\n")) sock.destroy();
    });
    sock.on("close", () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(out);
      m ? resolve(Number(m[1])) : reject(new Error(`no status line: ${JSON.stringify(out.slice(0, 200))}`));
    });
    sock.on("error", reject);
    const hs = Object.entries({ host: `127.0.0.1:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join("");
    const body = method === "GET" ? "" : JSON.stringify({ decision: "deny", prompt: "x" });
    sock.on("connect", () => sock.write(`${method} ${path} HTTP/1.1\r\n${hs}content-length: ${body.length}\r\n\r\n${body}`));
  });
}

describe("malformed %-escapes in the path", () => {
  let dir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dir = tempDir("escape");
    server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "token", token: TOKEN }, workspace: dir, version: "test" });
  });
  afterAll(async () => {
    await server?.stop();
    cleanup(dir);
  });

  const cases: [string, string][] = [
    ["GET", "/api/sessions/%ZZ"],
    ["GET", "/api/sessions/%ZZ/history"],
    ["DELETE", "/api/sessions/%E0%A4%A"],
    ["POST", "/api/sessions/abc/approvals/%ZZ"],
    ["POST", "/api/sessions/abc/approvals/call%"],
    ["GET", "/sessions/%ZZ"],
    ["GET", "/sessions/%"],
    ["GET", "/assets/%ZZ.js"],
    ["GET", "/%ZZ"],
    ["GET", "/api/%ZZ"],
  ];

  test("answer 400 on every route, authenticated or not, never 500", async () => {
    for (const [method, path] of cases) {
      for (const headers of [{}, { ...authz, "content-type": "application/json" }]) {
        const status = await rawStatus(server.port, method, path, headers);
        expect(`${method} ${path} ${status}`).toBe(`${method} ${path} 400`);
      }
    }
  });

  test("well-formed escapes still route as before", async () => {
    expect(await rawStatus(server.port, "GET", "/sessions/abc%2Ddef", authz)).toBe(200);
    expect(await rawStatus(server.port, "GET", "/api/no%20such%20route", authz)).toBe(404);
  });
});

/** POST /login from a chosen loopback source address (Bun's fetch cannot pick one). */
function loginFrom(port: number, localAddress: string, password: string): Promise<number> {
  const body = JSON.stringify({ password });
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, localAddress, method: "POST", path: "/login", agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("password login from rotating 127.0.0.x addresses", () => {
  let dir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dir = tempDir("rotate");
    // Cost 4: the limiter is under test, not bcrypt.
    const passwordHash = await Bun.password.hash("correct horse battery", { algorithm: "bcrypt", cost: 4 });
    server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "password", passwordHash }, workspace: dir, version: "test" });
  });
  afterAll(async () => {
    await server?.stop();
    cleanup(dir);
  });

  test("the client sockets really come from different addresses", async () => {
    const seen = new Set<string>();
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req, s) => (seen.add(s.requestIP(req)!.address), new Response("ok")) });
    try {
      for (const a of ["127.0.0.2", "127.0.0.3"]) await loginFrom(probe.port!, a, "x");
    } finally {
      probe.stop(true);
    }
    expect([...seen].sort()).toEqual(["127.0.0.2", "127.0.0.3"]);
  });

  test("twelve source addresses still get no more than one client's 5 guesses a minute", async () => {
    const statuses: number[] = [];
    for (let i = 2; i < 14; i++) {
      for (let k = 0; k < 5; k++) statuses.push(await loginFrom(server.port, `127.0.0.${i}`, `guess-${i}-${k}`));
    }
    const tried = statuses.filter((s) => s === 401).length;
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(tried).toBe(5);
    // Even the right password is refused until the window passes.
    expect(await loginFrom(server.port, "127.0.0.200", "correct horse battery")).toBe(429);
  });
});

describe("password login from many addresses behind a proxy", () => {
  let dir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dir = tempDir("ceiling");
    const passwordHash = await Bun.password.hash("correct horse battery", { algorithm: "bcrypt", cost: 4 });
    server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "password", passwordHash }, behindProxy: true, workspace: dir, version: "test" });
  });
  afterAll(async () => {
    await server?.stop();
    cleanup(dir);
  });

  test("a global ceiling of 20 attempts a minute holds however many addresses the proxy sees", async () => {
    const login = (seenByProxy: string, password: string) =>
      fetch(`${server.url}login`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": seenByProxy }, body: JSON.stringify({ password }) });
    const statuses: number[] = [];
    for (let i = 1; i <= 8; i++) for (let k = 0; k < 5; k++) statuses.push((await login(`198.51.100.${i}`, "wrong")).status);
    expect(statuses.filter((s) => s === 401).length).toBe(20);
    expect(statuses.filter((s) => s === 429).length).toBe(20);
    const limited = await login("198.51.100.99", "correct horse battery");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

test("rate-limit identities: loopback is one client, IPv4-mapped is IPv4, IPv6 is its /64", () => {
  for (const a of ["127.0.0.1", "127.0.0.2", "127.255.0.9", "::1", "::ffff:127.0.0.5"]) expect(clientKey(a)).toBe("loopback");
  expect(clientKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
  expect(clientKey("198.51.100.7")).toBe("198.51.100.7");
  expect(clientKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
  expect(clientKey("2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
  expect(clientKey("2001:db8::7")).toBe("2001:db8:0:0::/64");
  expect(clientKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
});

describe("isLoopbackHost without node:net (core/serve/loopback.ts)", () => {
  test("reads IPv4 as node:net's isIP does: only canonical dotted quads in 127/8 are loopback", async () => {
    const { isIP } = await import("node:net");
    const { isLoopbackHost } = await import("../loopback.ts");
    for (const h of ["127.0.0.1", "127.255.0.9", "127.01.0.1", "0127.0.0.1", "127.0.0.256", "127.1", "127.0.0.1.", "127.0.0.1.example.com", "128.0.0.1", "1.2.3.4", "[::1]", "::ffff:127.0.0.1", "LOCALHOST", "a.localhost", "localhost.example.com"]) {
      const bare = h.toLowerCase().replace(/^\[|\]$/g, "");
      const viaNet = bare === "localhost" || bare.endsWith(".localhost") || (isIP(bare) === 4 ? bare.startsWith("127.") : bare === "::1" || (bare.startsWith("::ffff:") && bare.slice(7).startsWith("127.")));
      expect({ h, loopback: isLoopbackHost(h) }).toEqual({ h, loopback: viaNet });
    }
  });
});
