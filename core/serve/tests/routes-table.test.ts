// The whole route table against the guards, pinned when the routes moved onto
// Hono (issue 26): every route answers 401 without the credential, 421 to a
// foreign Host, 403/415 to a cross-site or non-JSON write; an unknown path or
// a wrong method is a 404 JSON problem (there is no 405); HEAD answers only
// where GET serves a page; a malformed session id is 400 on every session
// route whatever the method; and every answer carries the security headers.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, tempDir } from "./helpers.ts";

setDefaultTimeout(60_000);

const TOKEN = "table-token-0123456789abcdefghijklmn";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_CT = { "content-type": "application/json" };
const METHODS = ["GET", "POST", "DELETE", "PUT", "PATCH"];

/** Every API route: [methods, path]. */
const API: [string[], string][] = [
  [["GET"], "/api/status"],
  [["GET"], "/api/models"],
  [["POST"], "/api/model"],
  [["GET", "POST"], "/api/trust"],
  [["GET"], "/api/events"],
  [["GET"], "/api/ws"],
  [["GET", "POST"], "/api/sessions"],
  [["GET"], "/api/files"],
  [["GET"], "/api/commands"],
  [["POST"], "/api/note"],
  [["GET"], "/api/complete"],
  [["GET"], "/api/memory"],
  [["GET"], "/api/memory/recall"],
  [["GET"], "/api/memory/facts/f1/revisions"],
  [["POST"], "/api/memory/facts/f1/forget"],
  [["POST"], "/api/memory/facts/f1/restore"],
  [["POST"], "/api/memory/recover"],
  [["POST"], "/api/setup/provider"],
  [["POST"], "/api/setup/provider/test"],
  [["POST"], "/api/setup/key"],
  [["GET"], "/api/mcp/registry"],
  [["GET"], "/api/mcp/registry/plan"],
  [["POST"], "/api/mcp/registry/install"],
  [["GET", "POST"], "/api/mcp/import"],
  [["GET"], "/api/settings"],
  ...["providers", "providers/test", "provider/test", "provider/default", "provider/effort", "provider/key", "rules", "mode", "theme", "mcp", "mcp/signin"].map(
    (a): [string[], string] => [["POST"], `/api/settings/${a}`],
  ),
  [["GET", "DELETE"], "/api/sessions/s1"],
  [["GET"], "/api/sessions/s1/history"],
  [["GET"], "/api/sessions/s1/jobs"],
  [["GET", "POST"], "/api/sessions/s1/goal"],
  [["GET", "POST"], "/api/sessions/s1/queue"],
  [["GET", "POST"], "/api/sessions/s1/queue/1"],
  [["GET"], "/api/sessions/s1/queue/1/images/1"],
  ...["resume", "prompt", "cancel", "steer", "command", "rewind", "fork", "title", "mode", "effort", "model", "approvals/call_1", "questions/call_1"].map(
    (a): [string[], string] => [["POST"], `/api/sessions/s1/${a}`],
  ),
];
const PAGES = ["/", "/login", "/setup", "/sessions/s1"];
/** Routes that need no credential (besides the pages, which answer 401 with the sign-in page). */
const PUBLIC: [string[], string][] = [
  [["POST"], "/auth/token"],
  [["POST", "GET"], "/login"],
  [["POST"], "/auth/logout"],
  [["GET"], "/assets/app.js"],
  [["GET"], "/assets/app.css"],
];
const pairs = (table: [string[], string][]) => table.flatMap(([ms, p]) => ms.map((m) => [m, p] as const));
const write = (m: string) => m !== "GET" && m !== "HEAD";

let dir: string;
let server: RunningServer;
let base: string;
const seen: Response[] = [];

function call(method: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, { method, headers, body: write(method) ? "{}" : undefined }).then((r) => {
    seen.push(r);
    return r;
  });
}
/** Status and JSON error body, read as one line so a failure names the route. */
async function outcome(method: string, path: string, headers: Record<string, string> = {}): Promise<string> {
  const r = await call(method, path, headers);
  const text = (r.headers.get("content-type") ?? "").includes("json") ? await r.text() : `(${r.headers.get("content-type")})`;
  return `${method} ${path} ${r.status} ${text}`;
}

beforeAll(async () => {
  dir = tempDir("table");
  server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "token", token: TOKEN }, workspace: dir, version: "test", home: dir });
  base = `http://${server.addr}`;
});
afterAll(async () => {
  await server?.stop();
  cleanup(dir);
});

describe("the guards on every route", () => {
  test("without the credential: every API route 401 unauthorized, every page 401 with the sign-in page", async () => {
    for (const [m, p] of pairs(API)) {
      expect(await outcome(m, p, JSON_CT)).toBe(`${m} ${p} 401 {"error":{"code":"unauthorized","message":"authentication required"}}`);
    }
    for (const p of PAGES) {
      const r = await call("GET", p);
      expect(`${p} ${r.status} ${r.headers.get("content-type")}`).toBe(`${p} 401 text/html; charset=utf-8`);
      expect(await r.text()).toContain('data-authed="false"');
    }
  });

  test("the public routes and /healthz do not ask for the credential", async () => {
    const got: string[] = [];
    for (const [m, p] of [...pairs(PUBLIC), ["GET", "/healthz"] as const, ["GET", "/favicon.ico"] as const]) got.push(`${m} ${p} ${(await call(m, p, JSON_CT)).status}`);
    // /auth/token with no token in the body: 401 bad_token is the route's own answer, not the guard's.
    expect(got).toEqual([
      "POST /auth/token 401", "POST /login 404", "GET /login 401", "POST /auth/logout 204",
      "GET /assets/app.js 200", "GET /assets/app.css 200", "GET /healthz 200", "GET /favicon.ico 204",
    ]);
    expect(await (await call("POST", "/auth/token", JSON_CT)).json()).toEqual({ error: { code: "bad_token", message: "invalid token" } });
  });

  test("a foreign Host is 421 misdirected on every route but /healthz, before the credential is looked at", async () => {
    const host = { host: `evil.example:${server.port}` };
    for (const [m, p] of [...pairs(API), ...pairs(PUBLIC), ...PAGES.map((p) => ["GET", p] as const), ["DELETE", "/favicon.ico"] as const, ["GET", "/nope"] as const]) {
      for (const cred of [{}, AUTH]) {
        expect(await outcome(m, p, { ...host, ...cred, ...JSON_CT })).toBe(`${m} ${p} 421 {"error":{"code":"misdirected","message":"this server does not answer to that Host name"}}`);
      }
    }
    expect((await call("GET", "/healthz", host)).status).toBe(200);
  });

  test("every write from a foreign Origin is 403, every non-JSON write 415, authenticated or not", async () => {
    const writes = [...pairs(API), ...pairs(PUBLIC), ["POST", "/favicon.ico"] as const, ["PUT", "/nope"] as const].filter(([m]) => write(m));
    for (const [m, p] of writes) {
      for (const cred of [{}, AUTH]) {
        expect(await outcome(m, p, { ...cred, ...JSON_CT, origin: "http://evil.example" })).toBe(`${m} ${p} 403 {"error":{"code":"cross_origin","message":"cross-origin requests are refused"}}`);
        expect(await outcome(m, p, { ...cred, "content-type": "text/plain" })).toBe(`${m} ${p} 415 {"error":{"code":"json_required","message":"state-changing requests must send Content-Type: application/json"}}`);
      }
    }
  });
});

describe("what no route takes", () => {
  const noRoute = (m: string, p: string) => `${m} ${p} 404 {"error":{"code":"not_found","message":"no route ${m} ${p}"}}`;

  test("a wrong method on a known path is 404 no route (never 405), with the credential", async () => {
    for (const [ms, p] of [...API, ...PUBLIC, [["GET"], "/"] as [string[], string], [["GET"], "/setup"] as [string[], string]]) {
      for (const m of METHODS.filter((x) => !ms.includes(x))) expect(await outcome(m, p, { ...AUTH, ...JSON_CT })).toBe(noRoute(m, p));
    }
  });

  test("unknown paths are 404 no route; under /api/ only after the credential check", async () => {
    for (const p of ["/nope", "/api", "/sessions/a/b", "/assets/other.js", "/healthz/", "/api/status/", "/api/sessions/s1/nope", "/api/sessions/s1/approvals", "/api/sessions/s1/history/x"]) {
      expect(await outcome("GET", p, AUTH)).toBe(noRoute("GET", p));
    }
    expect(await outcome("GET", "/api/nope")).toBe(`GET /api/nope 401 {"error":{"code":"unauthorized","message":"authentication required"}}`);
    expect(await outcome("GET", "/api/nope", AUTH)).toBe(noRoute("GET", "/api/nope"));
  });

  test("routes match the raw path: an escaped letter is another path", async () => {
    expect(await outcome("GET", "/api/st%61tus", AUTH)).toBe(noRoute("GET", "/api/st%61tus"));
  });

  test("HEAD answers like GET on the pages, /healthz and /favicon.ico only; elsewhere it is an unknown route", async () => {
    for (const p of PAGES) {
      for (const cred of [{}, AUTH]) {
        const [get, head] = [await call("GET", p, cred), await call("HEAD", p, cred)];
        const headers = (r: Response) => [...r.headers].filter(([k]) => k !== "date");
        expect(`${p} ${head.status}`).toBe(`${p} ${get.status}`);
        expect(headers(head)).toEqual(headers(get));
        expect(await head.text()).toBe("");
      }
    }
    expect((await call("HEAD", "/healthz")).status).toBe(200);
    expect((await call("HEAD", "/favicon.ico")).status).toBe(204);
    const headStatus = async (p: string, cred: Record<string, string>) => `${p} ${(await call("HEAD", p, cred)).status}`;
    for (const p of ["/assets/app.js", "/nope"]) expect(await headStatus(p, {})).toBe(`${p} 404`);
    for (const [, p] of pairs(API).filter(([m]) => m === "GET")) {
      expect(await headStatus(p, {})).toBe(`${p} 401`);
      expect(await headStatus(p, AUTH)).toBe(`${p} 404`);
    }
  });
});

describe("session ids", () => {
  test("a malformed id is 400 bad_id on the session and each of its actions, whatever the method (HEAD too)", async () => {
    const actions = ["", ...API.map(([, p]) => /^\/api\/sessions\/s1\/(.+)$/.exec(p)?.[1]).filter((a): a is string => !!a)];
    expect(actions.length).toBe(20);
    for (const bad of ["bad!id", "..%2F..%2Fetc", ".hidden", "x".repeat(129)]) {
      for (const a of actions) {
        const p = `/api/sessions/${bad}${a ? `/${a}` : ""}`;
        for (const m of [...METHODS, "HEAD"]) {
          const r = await call(m, p, { ...AUTH, ...JSON_CT });
          const body = m === "HEAD" ? "" : await r.text();
          expect(`${m} ${p} ${r.status} ${body}`).toBe(`${m} ${p} 400 ${m === "HEAD" ? "" : '{"error":{"code":"bad_id","message":"malformed session id"}}'}`);
        }
      }
    }
  });

  test("a malformed id under an unknown action is just an unknown route", async () => {
    for (const p of ["/api/sessions/bad!id/nope", "/api/sessions/bad!id/approvals/a/b", "/api/sessions/bad!id/"]) {
      expect((await call("GET", p, AUTH)).status).toBe(404);
    }
  });

  test("each session action is routed (answers something other than no route)", async () => {
    for (const [m, p] of pairs(API).filter(([, p]) => p.startsWith("/api/sessions/s1"))) {
      const body = (await (await call(m, p, { ...AUTH, ...JSON_CT })).json()) as { error?: { message: string } };
      expect(`${m} ${p} ${body.error?.message ?? "ok"}`).not.toContain("no route");
    }
  });
});

test("every answer above carried the security headers", () => {
  expect(seen.length).toBeGreaterThan(500);
  for (const r of seen) {
    const h = Object.fromEntries(["x-content-type-options", "referrer-policy", "x-frame-options"].map((k) => [k, r.headers.get(k)]));
    expect(`${r.url} ${JSON.stringify(h)}`).toBe(`${r.url} ${JSON.stringify({ "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "x-frame-options": "DENY" })}`);
  }
});
