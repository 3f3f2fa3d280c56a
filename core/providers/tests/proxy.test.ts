import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProvider } from "../registry.ts";
import { ProviderError } from "../errors.ts";
import "../index.ts";
import { PROXY_FILE_ENV, PROXY_KEY_ENV, PROXY_MAX_BODY, PROXY_SECRET_HEADER, manifestEntries, proxiedEntries, proxyManifestFromEnv, proxySecretReader, startProviderProxy, type ProviderProxy } from "../proxy.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import type { ProviderConfig } from "../types.ts";

const KEY = "sk-real-key-0123456789abcdef";
const open: { close?: () => Promise<void>; stop?: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0)) await (x.close ?? x.stop)!();
});

async function setup(kind: "openai" | "anthropic", steps: any[]) {
  const llm: ScriptedServer = kind === "openai" ? await startScriptedOpenAI(steps) : await startScriptedAnthropic(steps);
  open.push(llm);
  const local: ProviderConfig[] = [{ name: "m", kind, base_url: llm.url, model: "x-1", api_key_env: "M_KEY", headers: { "x-custom": "local-only" }, context_window: 1000 }];
  const proxy: ProviderProxy = startProviderProxy({ entries: local, deps: { secret: (n) => (n === "M_KEY" ? KEY : undefined) } });
  open.push(proxy);
  const entries = proxiedEntries({ url: `http://127.0.0.1:${proxy.port}`, secret: proxy.secret, providers: manifestEntries(local) });
  return { llm, proxy, entries };
}

const req = { system: "s", tools: [], messages: [{ role: "user" as const, content: "hi" }] };

describe("provider proxy", () => {
  for (const kind of ["openai", "anthropic"] as const) {
    test(`${kind}: a turn through the proxy reaches the model with the real key, never the secret`, async () => {
      const { llm, proxy, entries } = await setup(kind, [{ text: "hello there" }]);
      expect(JSON.stringify(entries)).not.toContain(KEY);
      expect(JSON.stringify(entries)).not.toContain("local-only");
      const p = createProvider({ ...entries[0]!, model: "x-1" }, { secret: (n) => (n === PROXY_KEY_ENV ? proxy.secret : undefined) });
      let text = "";
      const r = await p.chat(req, { onText: (d) => (text += d) }, new AbortController().signal);
      expect(r.message.content).toBe("hello there");
      expect(text).toBe("hello there");
      const h = llm.chatRequests()[0]!.headers;
      if (kind === "openai") expect(h.authorization).toBe(`Bearer ${KEY}`);
      else expect(h["x-api-key"]).toBe(KEY);
      expect(h["x-custom"]).toBe("local-only");
      expect(h[PROXY_SECRET_HEADER]).toBeUndefined();
      expect(JSON.stringify(h)).not.toContain(proxy.secret);
    });
  }

  test("a missing or wrong secret gets 401 and never reaches the provider", async () => {
    const { llm, proxy } = await setup("openai", [{ text: "no" }]);
    const url = `http://127.0.0.1:${proxy.port}/p/m/chat/completions`;
    const body = JSON.stringify({ model: "x-1", messages: [] });
    expect((await fetch(url, { method: "POST", body })).status).toBe(401);
    expect((await fetch(url, { method: "POST", body, headers: { [PROXY_SECRET_HEADER]: "0".repeat(64) } })).status).toBe(401);
    expect((await fetch(url, { method: "POST", body, headers: { [PROXY_SECRET_HEADER]: proxy.secret.slice(0, 10) } })).status).toBe(401);
    expect((await fetch(url, { method: "POST", body, headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    expect((await fetch(url, { method: "POST", body, headers: { "x-api-key": "wrong" } })).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${proxy.port}/p/nope/x`, { headers: { [PROXY_SECRET_HEADER]: proxy.secret } })).status).toBe(404);
    expect(llm.requests.length).toBe(0);
  });

  test("while the proxy does not answer (link down), calls fail retryably with \"laptop link down, retrying\"", async () => {
    const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = gone.port;
    await gone.stop(true);
    for (const kind of ["openai", "anthropic"]) {
      const [e] = proxiedEntries({ url: `http://127.0.0.1:${port}`, secret: "s".repeat(64), providers: [{ name: "m", kind, model: "x" }] });
      const err = await createProvider(e!, { secret: () => "s".repeat(64) }).chat(req, {}, new AbortController().signal).catch((x) => x);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.message).toStartWith("laptop link down, retrying");
      expect((err as ProviderError).retryable).toBe(true);
    }
  });

  test("a request body over PROXY_MAX_BODY is refused (413) and never forwarded", async () => {
    const { llm, proxy } = await setup("openai", [{ text: "no" }]);
    const res = await fetch(`http://127.0.0.1:${proxy.port}/p/m/chat/completions`, { method: "POST", body: new Uint8Array(PROXY_MAX_BODY + 1024), headers: { [PROXY_SECRET_HEADER]: proxy.secret } }).catch(() => null);
    // Bun answers 413, or closes the connection mid-upload: either way nothing went through.
    if (res) expect(res.status).toBe(413);
    expect(llm.requests.length).toBe(0);
  });

  test("response bodies stream through: the first chunk arrives while the provider still holds the rest", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const up = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            async start(c) {
              c.enqueue(new TextEncoder().encode("data: first\n\n"));
              await held;
              c.enqueue(new TextEncoder().encode("data: second\n\n"));
              c.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    });
    open.push({ stop: () => up.stop(true) });
    const proxy = startProviderProxy({ entries: [{ name: "u", kind: "openai", base_url: `http://127.0.0.1:${up.port}/v1`, model: "m" }], deps: { secret: () => undefined } });
    open.push(proxy);
    const res = await fetch(`http://127.0.0.1:${proxy.port}/p/u/chat/completions`, { method: "POST", body: "{}", headers: { [PROXY_SECRET_HEADER]: proxy.secret } });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("first");
    expect(first).not.toContain("second");
    release();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toContain("second");
  });

  test("the manifest file: read only when private; a missing file means no proxy", () => {
    const dir = mkdtempSync(join(tmpdir(), "rx-proxy-"));
    const f = join(dir, "m.json");
    expect(proxyManifestFromEnv({ [PROXY_FILE_ENV]: f })).toBeNull();
    writeFileSync(f, JSON.stringify({ url: "http://127.0.0.1:9/", secret: "a".repeat(64), providers: [{ name: "m", kind: "openai", model: "x" }] }));
    chmodSync(f, 0o644);
    expect(() => proxyManifestFromEnv({ [PROXY_FILE_ENV]: f })).toThrow(/0600/);
    chmodSync(f, 0o600);
    const m = proxyManifestFromEnv({ [PROXY_FILE_ENV]: f })!;
    expect(proxiedEntries(m)[0]!.base_url).toBe("http://127.0.0.1:9/p/m");
    // The secret is the entries' key, re-read when the file changes (a new connection rotates it).
    expect(proxiedEntries(m)[0]!.api_key_env).toBe(PROXY_KEY_ENV);
    const read = proxySecretReader(m);
    expect(read()).toBe("a".repeat(64));
    writeFileSync(f, JSON.stringify({ url: "http://127.0.0.1:9/", secret: "b".repeat(64), providers: [{ name: "m", kind: "openai", model: "x" }] }));
    expect(read()).toBe("b".repeat(64));
    writeFileSync(f, JSON.stringify({ url: "http://evil.example/", secret: "a".repeat(64), providers: [{ name: "m", kind: "openai" }] }));
    expect(() => proxyManifestFromEnv({ [PROXY_FILE_ENV]: f })).toThrow(/127\.0\.0\.1/);
  });
});
