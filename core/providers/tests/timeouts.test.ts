// How long a provider that sends nothing is waited for: the first-byte
// default (tens of seconds from a remote provider, longer only where silence
// before the first byte is normal), and a retry that says how long it will
// keep trying. Real TCP on 127.0.0.1; timeouts are configured small.
import { afterEach, expect, test } from "bun:test";
import { createServer, type Socket } from "node:net";
import { chatWithRetry, ProviderError } from "../index.ts";
import { manifestEntries } from "../proxy.ts";
import { streamTimeouts } from "../stream-watch.ts";
import { policy, providerFixture, signal } from "./fixture.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("defaults: 30 s to the first byte from a remote provider, 300 s only where silence first is normal; 120 s idle mid-answer", () => {
  const at = (over: Record<string, unknown>) => streamTimeouts({ name: "p", kind: "openai", base_url: "https://api.example.com/v1", model: "some-model", ...over } as any);
  expect(at({})).toEqual({ firstByteMs: 30_000, idleMs: 120_000 });
  for (const kind of ["anthropic", "responses"]) expect(at({ kind, model: "gpt-5" }).firstByteMs).toBe(30_000);
  // OpenAI's reasoning models on Chat Completions send nothing while they think.
  expect(at({ model: "gpt-5" }).firstByteMs).toBe(300_000);
  expect(at({ model: "openai/o3" }).firstByteMs).toBe(300_000);
  expect(at({ capability: "openai-reasoning" }).firstByteMs).toBe(300_000);
  // A server on this machine may be loading the model first.
  expect(at({ base_url: "http://127.0.0.1:11434/v1" }).firstByteMs).toBe(300_000);
  expect(at({ base_url: "http://localhost:1234/v1" }).firstByteMs).toBe(300_000);
  // The entry's settings win.
  expect(at({ first_byte_timeout_seconds: 90, idle_timeout_seconds: 600 })).toEqual({ firstByteMs: 90_000, idleMs: 600_000 });
  // A remote agent reaches entries through a loopback proxy: it gets this machine's wait, not the local-server one.
  const shared = manifestEntries([{ name: "a", kind: "openai", base_url: "https://api.example.com/v1", model: "m" }, { name: "b", kind: "openai", base_url: "https://api.example.com/v1", model: "gpt-5" }]);
  expect(shared.map((e) => e.first_byte_timeout_seconds)).toEqual([30, 300]);
});

const fx = providerFixture({ name: "mute", kind: "openai", model: "m-1", api_key_env: "K" }, "K=sk-test");

test("a provider that accepts the connection and sends nothing: each attempt ends at first_byte_timeout_seconds and the retries say how long it keeps trying", async () => {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((s) => {
    connections++;
    sockets.add(s);
    s.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  const retries: string[] = [];
  const err = await chatWithRetry(fx.make(url, { first_byte_timeout_seconds: 0.2 }), fx.req(), {}, signal(), { ...policy, maxAttempts: 3 }, (n) => retries.push(n.reason)).catch((e) => e);
  expect(err).toBeInstanceOf(ProviderError);
  expect(err.kind).toBe("stalled");
  expect(connections).toBe(3);
  expect(retries).toHaveLength(2);
  expect(retries[0]).toContain("first_byte_timeout_seconds = 0.2");
  expect(retries[0]).toMatch(/2 more attempts, each waiting up to 0\.2 s/);
  expect(retries[1]).toMatch(/1 more attempt, each waiting up to 0\.2 s/);
  expect(err.message).toMatch(/gave up after 3 attempts in \d+(\.\d)? s/);
});
