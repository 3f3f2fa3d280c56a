import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { connect } from "node:net";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CookieSigner, COOKIE_NAME } from "../auth.ts";
import { engineFactoryFromConfig, providerKeyWriter } from "../engine.ts";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, startServe, tempDir, waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);

const CONFIG_TOKEN = "cfg-token-0123456789abcdefghijklmnop";

describe("password login behind a proxy", () => {
  let dir: string;
  let server: RunningServer;
  let passwordHash: string;
  beforeAll(async () => {
    dir = tempDir("sec");
    // Cost 4: the limiter is under test, not bcrypt.
    passwordHash = await Bun.password.hash("correct horse battery", { algorithm: "bcrypt", cost: 4 });
    server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "password", passwordHash }, behindProxy: true, workspace: dir, version: "test" });
  });
  afterAll(async () => {
    await server?.stop();
    cleanup(dir);
  });

  const login = (xff: string) =>
    fetch(`${server.url}login`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": xff }, body: JSON.stringify({ password: "wrong" }) });

  test("a client cannot dodge the 5/min limit by varying what it puts in X-Forwarded-For", async () => {
    // The proxy appends the address it saw (203.0.113.7); the client chose the rest.
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await login(`10.0.0.${i}, 203.0.113.7`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // Another address as seen by the proxy is another client.
    expect((await login("10.0.0.1, 203.0.113.8")).status).toBe(401);
  });

  test("knowing password_hash is not enough to forge a session cookie", async () => {
    // Anyone who can read the config has the hash; the cookie key must not follow from it alone.
    const forged = new CookieSigner(`password\0${passwordHash}`).issue().value;
    const res = await fetch(`${server.url}api/status`, { headers: { cookie: `${COOKIE_NAME}=${forged}`, "x-forwarded-for": "203.0.113.9" } });
    expect(res.status).toBe(401);
  });
});

test("a token from [serve].token is not printed (neither plain nor --json)", async () => {
  const dir = tempDir("cfgtok");
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(join(home, "config.toml"), `[serve]\ntoken = "${CONFIG_TOKEN}"\n`, { mode: 0o600 });
  try {
    for (const extra of [[], ["--json"]]) {
      const s = await startServe(["--addr", "127.0.0.1:0", "--workspace", dir, ...extra], { home });
      try {
        await waitFor("listening line", () => /listening|"url"/.test(s.stdout()));
        // The server really uses the config token…
        expect((await fetch(`${s.base}/api/status`, { headers: { authorization: `Bearer ${CONFIG_TOKEN}` } })).status).toBe(200);
        // …but never writes it where supervisors collect logs.
        expect(s.stdout()).not.toContain(CONFIG_TOKEN);
        expect(s.stderr()).not.toContain(CONFIG_TOKEN);
      } finally {
        await s.stop();
      }
    }
  } finally {
    cleanup(dir);
  }
});

test("password sessions survive a restart; the cookie key file is 0600", async () => {
  const dir = tempDir("pwkey");
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const hash = await Bun.password.hash("correct horse battery", { algorithm: "bcrypt", cost: 4 });
  writeFileSync(join(home, "config.toml"), `[serve]\nauth_mode = "password"\npassword_hash = "${hash}"\n`, { mode: 0o644 });
  try {
    const a = await startServe(["--addr", "127.0.0.1:0", "--workspace", dir], { home });
    let cookie: string;
    try {
      const res = await fetch(`${a.base}/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ password: "correct horse battery" }) });
      expect(res.status).toBe(204);
      cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    } finally {
      await a.stop();
    }
    expect(statSync(join(home, "server", "cookie-key")).mode & 0o777).toBe(0o600);
    const b = await startServe(["--addr", "127.0.0.1:0", "--workspace", dir], { home });
    try {
      expect((await fetch(`${b.base}/api/status`, { headers: { cookie } })).status).toBe(200);
    } finally {
      await b.stop();
    }
  } finally {
    cleanup(dir);
  }
});

test("an event-stream client that stops reading is cut off instead of buffered without bound", async () => {
  const dir = tempDir("sse");
  const server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "none" }, workspace: dir, version: "test" });
  const sock = connect(server.port, "127.0.0.1");
  try {
    await new Promise((r, j) => sock.once("connect", r).once("error", j));
    sock.pause();
    sock.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
    await waitFor("SSE client attached", () => server.hub.clients === 1);
    // ~39 MB of events while the client reads nothing (far beyond socket buffers).
    const chunk = "x".repeat(32 * 1024);
    const total = 1200 * chunk.length;
    for (let i = 0; i < 1200; i++) {
      server.hub.emit("s1", { type: "text", text: chunk } as never);
      if (i % 100 === 0) await Bun.sleep(1);
    }
    expect(server.hub.clients).toBe(0);
    let got = 0;
    let closed = false;
    sock.on("data", (d: Buffer) => void (got += d.length));
    sock.on("close", () => void (closed = true));
    sock.resume();
    await waitFor("the stream to end", () => closed, 15_000);
    expect(got).toBeLessThan(total);
    // A reconnecting client still gets the whole replay buffer, however large.
    const ac = new AbortController();
    const res = await fetch(`${server.url}api/events?since=0`, { signal: ac.signal });
    const reader = res.body!.getReader();
    let text = "";
    await waitFor("replay", async () => {
      text += new TextDecoder().decode((await reader.read()).value);
      return (text.match(/^id: /gm)?.length ?? 0) >= 1200;
    });
    ac.abort();
  } finally {
    sock.destroy();
    await server.stop();
    cleanup(dir);
  }
});

test("the setup page only writes credential-like variable names into .env", async () => {
  const dir = tempDir("setupname");
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  // As a cloned repository's .reasonix config could declare them.
  const provider = (name: string, env: string) => `[[providers]]\nname = "${name}"\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key_env = "${env}"\n\n`;
  writeFileSync(join(home, "config.toml"), `default_model = "preload"\n\n${provider("preload", "LD_PRELOAD")}${provider("path", "PATH")}${provider("good", "GOOD_API_KEY")}`);
  const server = await startServer({
    host: "127.0.0.1", port: 0, auth: { mode: "none" }, workspace: dir, version: "test", defaultModel: "preload",
    engineFactory: await engineFactoryFromConfig(home), saveProviderKey: providerKeyWriter(home),
  });
  const save = (body: unknown) => fetch(`${server.url}api/setup/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  try {
    expect((await save({ key: "sk-pasted" })).status).toBe(400);
    expect((await save({ key: "sk-pasted", provider: "path" })).status).toBe(400);
    const env = join(home, ".env");
    expect(existsSync(env) ? readFileSync(env, "utf8") : "").not.toMatch(/LD_PRELOAD|PATH=/);
    // A proper credential name is still written.
    await save({ key: "sk-pasted", provider: "good" });
    expect(readFileSync(env, "utf8")).toContain("GOOD_API_KEY=sk-pasted");
  } finally {
    await server.stop();
    cleanup(dir);
  }
});

test("a WebSocket client that stops reading is closed (so it reconnects and replays), not silently skipped", async () => {
  const dir = tempDir("wsslow");
  const server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "none" }, workspace: dir, version: "test" });
  const sock = connect(server.port, "127.0.0.1");
  try {
    await new Promise((r, j) => sock.once("connect", r).once("error", j));
    let closed = false;
    sock.on("data", () => {});
    sock.on("close", () => void (closed = true));
    sock.write(`GET /api/ws HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    await waitFor("WebSocket client attached", () => server.hub.clients === 1);
    sock.pause();
    const chunk = "x".repeat(32 * 1024);
    for (let i = 0; i < 1200; i++) {
      server.hub.emit("s1", { type: "text", text: chunk } as never);
      await Bun.sleep(0);
    }
    await waitFor("the socket to be dropped", () => server.hub.clients === 0, 10_000);
    sock.resume();
    await waitFor("the connection to close", () => closed, 10_000);
  } finally {
    sock.destroy();
    await server.stop();
    cleanup(dir);
  }
});

test("live event streams are capped (64), then 503 until one closes", async () => {
  const dir = tempDir("cap");
  const server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "none" }, workspace: dir, version: "test" });
  // Each open stream keeps its Response referenced and has read the server's
  // ": connected" line: a Response the test dropped is closed when the garbage
  // collector takes it (under load that freed slots mid-test and the wait for
  // 64 clients never came true).
  const open: { ac: AbortController; res: Response }[] = [];
  const sse = async () => {
    const ac = new AbortController();
    const res = await fetch(`${server.url}api/events`, { signal: ac.signal });
    if (res.status === 200) {
      open.push({ ac, res });
      const first = await res.body!.getReader().read();
      expect(new TextDecoder().decode(first.value)).toContain(": connected");
    }
    return res;
  };
  try {
    for (let i = 0; i < 64; i++) expect((await sse()).status).toBe(200);
    Bun.gc(true); // the streams must survive a collection (this is what load did by chance)
    await waitFor("64 clients", () => server.hub.clients === 64);
    const over = await sse();
    expect(over.status).toBe(503);
    const ws = new WebSocket(`ws://${server.addr}/api/ws`);
    const wsOpened = await new Promise<boolean>((r) => {
      ws.onopen = () => r(true);
      ws.onerror = () => r(false);
    });
    expect(wsOpened).toBe(false);
    open.pop()!.ac.abort();
    await waitFor("a slot to free up", () => server.hub.clients === 63);
    expect((await sse()).status).toBe(200);
  } finally {
    for (const o of open) o.ac.abort();
    await server.stop();
    cleanup(dir);
  }
});

test("a request without a usable Host header gets 421, not a 500", async () => {
  const dir = tempDir("nohost");
  const server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "none" }, workspace: dir, version: "test" });
  const status = (req: string) =>
    new Promise<string>((resolve) => {
      const sock = connect(server.port, "127.0.0.1");
      let out = "";
      sock.on("data", (d: Buffer) => {
        out += d.toString("latin1");
        if (out.includes("\r\n")) sock.destroy();
      });
      sock.on("close", () => resolve(out.split("\r\n")[0] ?? ""));
      sock.on("error", () => resolve("error"));
      sock.on("connect", () => sock.write(req));
    });
  try {
    expect(await status("GET /api/status HTTP/1.0\r\n\r\n")).toContain(" 421 ");
    expect(await status("GET /api/status HTTP/1.1\r\nHost: localhost@evil.example\r\n\r\n")).toContain(" 421 ");
  } finally {
    await server.stop();
    cleanup(dir);
  }
});
