import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { hashPassword } from "../auth.ts";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, tempDir } from "./helpers.ts";

setDefaultTimeout(60_000);

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
