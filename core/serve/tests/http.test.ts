import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { cleanup, runCli, startServe, tempDir, writeSecret, type ServeProc } from "./helpers.ts";
import { pollFor } from "../../testing/fresh-wait.ts";

setDefaultTimeout(60_000);

const TOKEN = "tok-0123456789abcdef0123456789abcdef";

// Every API route the server has; each must refuse an unauthenticated caller.
const API_ROUTES: [string, string][] = [
  ["GET", "/api/status"],
  ["GET", "/api/models"],
  ["POST", "/api/model"],
  ["GET", "/api/events"],
  ["GET", "/api/ws"],
  ["GET", "/api/sessions"],
  ["POST", "/api/sessions"],
  ["POST", "/api/setup/key"],
  ["GET", "/api/sessions/s1"],
  ["DELETE", "/api/sessions/s1"],
  ["GET", "/api/sessions/s1/history"],
  ["POST", "/api/sessions/s1/resume"],
  ["POST", "/api/sessions/s1/prompt"],
  ["POST", "/api/sessions/s1/cancel"],
  ["POST", "/api/sessions/s1/approvals/call_1"],
];
const PAGES = ["/", "/login", "/setup", "/sessions/s1"];
const AUTH_POSTS = ["/auth/token", "/login", "/auth/logout"];
const stateChanging = (m: string) => m !== "GET";

describe("serve --auth token --token-file", () => {
  let s: ServeProc;
  let openStream: AbortController | undefined;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir("tok");
    const tokenFile = writeSecret(dir, "token", TOKEN);
    // A record left behind by a server that died: must be swept lazily.
    const home = join(dir, "home");
    mkdirSync(join(home, "server", "instances"), { recursive: true, mode: 0o700 });
    const dead = Bun.spawnSync(["true"]).pid;
    writeFileSync(join(home, "server", "instances", `${dead}.json`), JSON.stringify({ pid: dead, startedAt: "x" }), { mode: 0o600 });
    s = await startServe(["--addr", "127.0.0.1:0", "--auth", "token", "--token-file", tokenFile, "--workspace", dir], { home });
  });
  afterAll(async () => {
    if (s?.proc.exitCode === null) await s.stop();
    cleanup(dir);
  });

  test("port file holds host:port and pid file the pid", () => {
    expect(s.addr).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(Number(s.addr.split(":")[1])).toBeGreaterThan(0);
    expect(readFileSync(s.pidFile, "utf8").trim()).toBe(String(s.proc.pid));
  });

  test("GET /healthz is public and returns exactly {ok, version}", async () => {
    const res = await fetch(`${s.base}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["ok", "version"]);
    expect(body.ok).toBe(true);
    expect(typeof body.version).toBe("string");
  });

  test("the token from --token-file is not in /proc/<pid>/cmdline", () => {
    if (!existsSync(`/proc/${s.proc.pid}/cmdline`)) return console.warn("skip: no /proc on this OS");
    const cmdline = readFileSync(`/proc/${s.proc.pid}/cmdline`, "utf8");
    expect(cmdline).toContain("--token-file");
    expect(cmdline).not.toContain(TOKEN);
    expect(s.stdout()).not.toContain(TOKEN);
    expect(s.stderr()).not.toContain(TOKEN);
  });

  test("instance file: dir 0700, file 0600, dead records swept", () => {
    const dirPath = join(s.home, "server", "instances");
    expect(statSync(dirPath).mode & 0o777).toBe(0o700);
    const files = readdirSync(dirPath);
    expect(files).toEqual([`${s.proc.pid}.json`]);
    const file = join(dirPath, files[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const rec = JSON.parse(readFileSync(file, "utf8"));
    expect(rec.pid).toBe(s.proc.pid);
    expect(rec.addr).toBe(s.addr);
    expect(JSON.stringify(rec)).not.toContain(TOKEN);
  });

  test("every API route without auth → 401", async () => {
    for (const [method, path] of API_ROUTES) {
      const res = await fetch(`${s.base}${path}`, {
        method,
        headers: stateChanging(method) ? { "content-type": "application/json" } : {},
        body: stateChanging(method) ? "{}" : undefined,
      });
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 401`);
    }
  });

  test("HTML pages without auth → 401 with the sign-in page", async () => {
    for (const path of PAGES) {
      const res = await fetch(`${s.base}${path}`);
      expect(`${path} ${res.status}`).toBe(`${path} 401`);
      expect(res.headers.get("content-type")).toContain("text/html");
      const html = await res.text();
      expect(html).toContain('data-auth="token"');
      expect(html).toContain('data-authed="false"');
    }
  });

  test("wrong Host → 421 on every route (DNS rebinding)", async () => {
    for (const [method, path] of [...API_ROUTES, ...PAGES.map((p) => ["GET", p] as [string, string]), ...AUTH_POSTS.map((p) => ["POST", p] as [string, string])]) {
      const res = await fetch(`${s.base}${path}`, {
        method,
        headers: { host: `evil.example:${s.addr.split(":")[1]}`, authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: stateChanging(method) ? "{}" : undefined,
      });
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 421`);
    }
  });

  test("state-changing requests: non-JSON → 415, foreign Origin → 403, even when authenticated", async () => {
    for (const [method, path] of [...API_ROUTES.filter(([m]) => stateChanging(m)), ...AUTH_POSTS.map((p) => ["POST", p] as [string, string])]) {
      const auth = { authorization: `Bearer ${TOKEN}` };
      const form = await fetch(`${s.base}${path}`, { method, headers: { ...auth, "content-type": "application/x-www-form-urlencoded" }, body: "a=b" });
      expect(`${method} ${path} ${form.status}`).toBe(`${method} ${path} 415`);
      const none = await fetch(`${s.base}${path}`, { method, headers: auth });
      expect(`${method} ${path} ${none.status}`).toBe(`${method} ${path} 415`);
      const cross = await fetch(`${s.base}${path}`, { method, headers: { ...auth, "content-type": "application/json", origin: "http://evil.example" }, body: "{}" });
      expect(`${method} ${path} ${cross.status}`).toBe(`${method} ${path} 403`);
    }
    // WebSocket upgrade from another origin is refused too.
    const ws = await fetch(`${s.base}/api/ws`, { headers: { authorization: `Bearer ${TOKEN}`, origin: "http://evil.example", upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" } });
    expect(ws.status).toBe(403);
  });

  test("token exchange: wrong token 401; right token sets an HttpOnly SameSite=Strict cookie", async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${s.base}/auth/token`, { method: "POST", headers: { "content-type": "application/json", origin: s.base, ...headers }, body: JSON.stringify(body) });
    expect((await post({ token: "nope" })).status).toBe(401);
    expect((await post({ token: TOKEN.slice(0, -1) })).status).toBe(401);
    expect((await post({})).status).toBe(401);
    const ok = await post({ token: TOKEN });
    expect(ok.status).toBe(204);
    const cookie = ok.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^reasonix_session=/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).not.toContain(TOKEN);
    const pair = cookie.split(";")[0]!;
    const st = await fetch(`${s.base}/api/status`, { headers: { cookie: pair } });
    expect(st.status).toBe(200);
    expect(((await st.json()) as { authMode: string }).authMode).toBe("token");
    const page = await fetch(`${s.base}/`, { headers: { cookie: pair } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-authed="true"');
    // A tampered cookie is worthless.
    const bad = await fetch(`${s.base}/api/status`, { headers: { cookie: `${pair.slice(0, -2)}xx` } });
    expect(bad.status).toBe(401);
  });

  test("SSE stream opens for an authenticated client", async () => {
    const ac = new AbortController();
    const res = await fetch(`${s.base}/api/events`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain(": connected");
    // Left open on purpose: SIGTERM must not wait for live event streams.
    openStream = ac;
  });

  test("SIGTERM: exit 0, instance, port and pid files removed", async () => {
    const instance = join(s.home, "server", "instances", `${s.proc.pid}.json`);
    expect(existsSync(instance)).toBe(true);
    expect(openStream).toBeDefined();
    const t0 = Date.now();
    expect(await s.stop()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(15_000);
    openStream?.abort();
    expect(existsSync(instance)).toBe(false);
    expect(existsSync(s.portFile)).toBe(false);
    expect(existsSync(s.pidFile)).toBe(false);
  });
});

test("SIGINT also shuts down cleanly with exit 0", async () => {
  const dir = tempDir("int");
  try {
    const s = await startServe(["--addr", "127.0.0.1:0", "--workspace", dir]);
    const instance = join(s.home, "server", "instances", `${s.proc.pid}.json`);
    expect(existsSync(instance)).toBe(true);
    s.proc.kill("SIGINT");
    expect(await s.proc.exited).toBe(0);
    expect(existsSync(instance)).toBe(false);
  } finally {
    cleanup(dir);
  }
});

describe("serve --auth password", () => {
  let s: ServeProc;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir("pw");
    s = await startServe(["--addr", "127.0.0.1:0", "--auth", "password", "--password", "correct horse battery", "--workspace", dir]);
  });
  afterAll(async () => {
    if (s?.proc.exitCode === null) await s.stop();
    cleanup(dir);
  });

  test("unauthenticated page shows the login page; API → 401", async () => {
    const res = await fetch(`${s.base}/`);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('data-auth="password"');
    expect((await fetch(`${s.base}/api/sessions`)).status).toBe(401);
  });

  test("login sets a signed expiring cookie; 5 attempts per minute then 429", async () => {
    const login = (password: string) =>
      fetch(`${s.base}/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ password }) });
    const ok = await login("correct horse battery");
    expect(ok.status).toBe(204);
    const cookie = ok.headers.get("set-cookie")!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toMatch(/Max-Age=\d+/);
    expect((await fetch(`${s.base}/api/status`, { headers: { cookie: cookie.split(";")[0]! } })).status).toBe(200);
    // Bearer tokens mean nothing in password mode.
    expect((await fetch(`${s.base}/api/status`, { headers: { authorization: "Bearer correct horse battery" } })).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await login(`wrong-${i}`)).status).toBe(401);
    const limited = await login("correct horse battery");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("CLI checks", () => {
  test("serve --hash-password prints a bcrypt hash that verifies", async () => {
    const r = await runCli(["serve", "--hash-password", "--password", "s3cret-pass"]);
    expect(r.code).toBe(0);
    const hash = r.stdout.trim();
    expect(hash).toMatch(/^\$2[aby]\$\d\d\$/);
    expect(await Bun.password.verify("s3cret-pass", hash)).toBe(true);
    expect(await Bun.password.verify("other", hash)).toBe(false);
  });

  test("non-loopback listener with --auth none is refused (exit 2) unless forced", async () => {
    const dir = tempDir("none");
    try {
      const r = await runCli(["serve", "--addr", "0.0.0.0:0", "--auth", "none", "--workspace", dir], { REASONIX_HOME: join(dir, "home") });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("without authentication");
    } finally {
      cleanup(dir);
    }
  });

  test("a group-readable token file is refused", async () => {
    const dir = tempDir("perm");
    try {
      const f = join(dir, "token");
      writeFileSync(f, TOKEN, { mode: 0o644 });
      const r = await runCli(["serve", "--addr", "127.0.0.1:0", "--token-file", f, "--workspace", dir], { REASONIX_HOME: join(dir, "home") });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("readable by other users");
      expect(r.stderr).toContain("chmod 600");
    } finally {
      cleanup(dir);
    }
  });

  test("web --port N listens on 127.0.0.1 from port N on (as --addr 127.0.0.1:N)", async () => {
    const blocker = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const dir = tempDir("web-port");
    try {
      const s = await startServe(["--no-open", "--port", String(blocker.port), "--workspace", dir], { command: "web" });
      try {
        const [host, port] = [s.addr.slice(0, s.addr.lastIndexOf(":")), Number(s.addr.split(":").at(-1))];
        expect(host).toBe("127.0.0.1");
        // Port N is taken: the next free one after it, never the default 8787.
        expect(port).toBeGreaterThan(blocker.port);
        expect(port).toBeLessThanOrEqual(blocker.port + 100);
      } finally {
        await s.stop();
      }
    } finally {
      blocker.stop(true);
      cleanup(dir);
    }
  });

  test("web: busy port → next port; fresh token printed in the URL fragment", async () => {
    const blocker = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const dir = tempDir("web");
    try {
      const s = await startServe(["--no-open", "--addr", `127.0.0.1:${blocker.port}`, "--workspace", dir], { command: "web" });
      try {
        const port = Number(s.addr.split(":")[1]);
        expect(port).toBeGreaterThan(blocker.port);
        expect(port).toBeLessThanOrEqual(blocker.port + 100);
        const url = /http:\/\/\S+#token=\S+/.exec(await pollFor("the URL with its token", () => s.stdout(), (out) => /#token=/.test(out)))?.[0];
        expect(url).toBeDefined();
        expect(url!.startsWith(`http://127.0.0.1:${port}/#token=`)).toBe(true);
        const token = url!.split("#token=")[1]!;
        expect(token.length).toBeGreaterThanOrEqual(32);
        expect((await fetch(`${s.base}/api/status`)).status).toBe(401);
        expect((await fetch(`${s.base}/api/status`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
        const rec = JSON.parse(readFileSync(join(s.home, "server", "instances", `${s.proc.pid}.json`), "utf8"));
        expect(rec.kind).toBe("web");
        expect(await s.stop()).toBe(0);
        expect(existsSync(join(s.home, "server", "instances", `${s.proc.pid}.json`))).toBe(false);
      } finally {
        if (s.proc.exitCode === null) await s.stop();
      }
    } finally {
      blocker.stop(true);
      cleanup(dir);
    }
  });
});
