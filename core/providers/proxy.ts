/**
 * A provider proxy for a remote agent whose provider keys stay here: it listens
 * on loopback only, accepts `/p/<entry>/<path>` for each local [[providers]]
 * entry, checks a shared secret (constant-time) in PROXY_SECRET_HEADER, adds the
 * entry's real key and headers, and forwards to the entry's base_url, streaming
 * bodies both ways unchanged. The other end learns only the manifest: names,
 * kinds, models, limits, prices — never a key or a custom header.
 */
import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { PROXY_KEY_ENV, PROXY_SECRET_HEADER, joinUrl } from "./http.ts";
import { providerKey, type ProviderDeps } from "./registry.ts";
import { streamTimeouts } from "./stream-watch.ts";
import type { ProviderConfig } from "./types.ts";
import { randomHex } from "../random.ts";

export { PROXY_KEY_ENV, PROXY_SECRET_HEADER };

/** Request bodies larger than this are refused (413): a model request is far smaller. */
export const PROXY_MAX_BODY = 32 * 1024 * 1024;

/** Fields of an entry the remote may see. Keys, key variables and custom headers are not among them. */
const MANIFEST_FIELDS = [
  "name", "kind", "model", "models", "full_url", "extra_body", "context_window", "max_output_tokens",
  "first_byte_timeout_seconds", "idle_timeout_seconds", "capability", "thinking", "reasoning_effort", "prices",
] as const satisfies readonly (keyof ProviderConfig)[];

export interface ProxyManifest {
  /** Base URL of the proxy as the remote reaches it, e.g. http://127.0.0.1:PORT */
  url: string;
  secret: string;
  default_model?: string;
  providers: ProviderConfig[];
}

/** The shareable part of local entries (no base_url: the remote gets the proxy's). */
export function manifestEntries(entries: ProviderConfig[]): ProviderConfig[] {
  return entries.map((e) => {
    const out: Record<string, unknown> = {};
    for (const k of MANIFEST_FIELDS) if (e[k] !== undefined) out[k] = e[k];
    // The remote reaches the entry through a loopback proxy: give it the first-byte
    // wait this entry has here, not the longer one for servers on its own machine.
    out.first_byte_timeout_seconds ??= streamTimeouts(e).firstByteMs / 1000;
    return out as unknown as ProviderConfig;
  });
}

/**
 * The entries a process uses when its provider calls go through a proxy: each
 * points at `<url>/p/<name>` and sends the secret as its key (api_key_env =
 * PROXY_KEY_ENV, resolved by `proxySecretReader`, so a rotated secret is used
 * from the next request on).
 */
export function proxiedEntries(m: ProxyManifest): ProviderConfig[] {
  return m.providers.map((e) => ({
    ...e,
    base_url: `${m.url.replace(/\/+$/, "")}/p/${encodeURIComponent(e.name)}`,
    api_key_env: PROXY_KEY_ENV,
    models_url: undefined,
    headers: undefined,
    auth: undefined,
  }));
}

/** The manifest's current secret, re-read when the file changes (the last good one if it cannot be read). */
export function proxySecretReader(m: ProxyManifest & { file?: string }): () => string {
  let secret = m.secret;
  let stamp = "";
  return () => {
    if (!m.file) return secret;
    try {
      const st = statSync(m.file);
      const now = `${st.mtimeMs}:${st.size}:${st.ino}`;
      if (now !== stamp) {
        secret = parseProxyManifest(readFileSync(m.file, "utf8")).secret;
        stamp = now;
      }
    } catch {}
    return secret;
  };
}

/** Read and check a manifest file (0600, written by the side that runs the proxy). */
export function parseProxyManifest(text: string): ProxyManifest {
  let j: any;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw new Error(`not valid JSON (${(e as Error).message})`);
  }
  if (!j || typeof j.url !== "string" || !/^http:\/\/127\.0\.0\.1:\d+\/?$/.test(j.url)) throw new Error(`url must be http://127.0.0.1:PORT`);
  if (typeof j.secret !== "string" || j.secret.length < 32) throw new Error(`secret is missing or too short`);
  if (!Array.isArray(j.providers) || j.providers.length === 0) throw new Error(`providers must list at least one entry`);
  for (const [i, p] of j.providers.entries()) {
    if (!p || typeof p.name !== "string" || typeof p.kind !== "string") throw new Error(`providers[${i}] needs name and kind`);
  }
  return j as ProxyManifest;
}

export interface ProviderProxy {
  port: number;
  secret: string;
  /** Use this secret from now on (e.g. the one a running remote serve already holds). */
  setSecret(s: string): void;
  stop(): Promise<void>;
}

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};

// Hop-by-hop and our own headers never go upstream; the caller's auth is replaced.
const DROP = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length", "authorization", "x-api-key", PROXY_SECRET_HEADER]);

/** Start the proxy on 127.0.0.1 (port 0: any free port). */
export function startProviderProxy(o: { entries: ProviderConfig[]; deps: ProviderDeps; port?: number; secret?: string }): ProviderProxy {
  let secret = o.secret ?? randomHex(32);
  const byName = new Map(o.entries.map((e) => [e.name, e]));
  const deny = (status: number, message: string) => Response.json({ error: { type: "proxy", message } }, { status });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: o.port ?? 0,
    maxRequestBodySize: PROXY_MAX_BODY,
    idleTimeout: 0, // a model may think for minutes before its first byte
    async fetch(req) {
      // The secret arrives as the entry's key (Bearer or x-api-key, by kind), or in our own header.
      const bearer = /^Bearer (.+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
      const given = req.headers.get(PROXY_SECRET_HEADER) ?? bearer ?? req.headers.get("x-api-key") ?? "";
      if (!same(given, secret)) return deny(401, "provider proxy: missing or wrong secret");
      const url = new URL(req.url);
      const m = /^\/p\/([^/]+)(\/.*)?$/.exec(url.pathname);
      const entry = m ? byName.get(decodeURIComponent(m[1]!)) : undefined;
      if (!entry || !entry.base_url) return deny(404, `provider proxy: no provider entry for ${url.pathname}`);
      let key: string | undefined;
      try {
        key = providerKey(entry, o.deps);
      } catch (e) {
        return deny(500, `provider proxy on the local side: ${(e as Error).message}`);
      }
      const headers = new Headers();
      req.headers.forEach((v, k) => {
        if (!DROP.has(k.toLowerCase())) headers.set(k, v);
      });
      for (const [k, v] of Object.entries(entry.headers ?? {})) headers.set(k, v);
      if (key) {
        if (entry.kind === "anthropic" && entry.auth !== "bearer") headers.set("x-api-key", key);
        else headers.set("authorization", `Bearer ${key}`);
      }
      const rest = m![2] ?? "";
      const target = (rest ? joinUrl(entry.base_url, rest) : entry.base_url) + url.search;
      try {
        const up = await fetch(target, {
          method: req.method,
          headers,
          body: req.method === "GET" || req.method === "HEAD" ? undefined : req.body,
          signal: req.signal,
          redirect: "manual",
          // @ts-expect-error Bun: stream the request body through
          duplex: "half",
        });
        const h = new Headers(up.headers);
        h.delete("content-encoding"); // fetch decoded it
        h.delete("content-length");
        return new Response(up.body, { status: up.status, statusText: up.statusText, headers: h });
      } catch (e) {
        return deny(502, `provider proxy on the local side cannot reach ${new URL(entry.base_url).host}: ${(e as Error).message}`);
      }
    },
  });
  return {
    port: server.port!,
    get secret() {
      return secret;
    },
    setSecret(s: string) {
      secret = s;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}

/** The environment variable naming a manifest file; set by whoever starts the process (e.g. `remote connect`'s launch script). */
export const PROXY_FILE_ENV = "REASONIX_PROVIDER_PROXY_FILE";

/**
 * The manifest named by $REASONIX_PROVIDER_PROXY_FILE, or null when the variable
 * is unset or the file does not exist. A file that exists but is unreadable,
 * malformed or readable by others is an error (fail closed).
 */
export function proxyManifestFromEnv(env: Record<string, string | undefined> = process.env): (ProxyManifest & { file: string }) | null {
  const file = env[PROXY_FILE_ENV];
  if (!file) return null;
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(file);
  } catch {
    return null;
  }
  if ((st.mode & 0o077) !== 0) throw new ConfigError(file, `provider proxy manifest must be private (mode 0600), found ${(st.mode & 0o777).toString(8)}`);
  try {
    return { ...parseProxyManifest(readFileSync(file, "utf8")), file };
  } catch (e) {
    throw new ConfigError(file, (e as Error).message);
  }
}
