import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, startServe, tempDir, waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);

const CONFIG_TOKEN = "cfg-token-0123456789abcdefghijklmnop";

describe("password login behind a proxy", () => {
  let dir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dir = tempDir("sec");
    // Cost 4: the limiter is under test, not bcrypt.
    const passwordHash = await Bun.password.hash("correct horse battery", { algorithm: "bcrypt", cost: 4 });
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
