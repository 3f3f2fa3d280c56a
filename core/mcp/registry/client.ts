/**
 * The MCP Registry's v0 API, read only when a command asks (`reasonix mcp
 * browse/install`), never at startup. Every successful answer is kept per
 * URL under the state directory; when the registry cannot be reached (no
 * connection, a timeout, a 5xx), the last answer for the same query is
 * served instead, marked stale with the error and its age. A 4xx (an
 * unknown server) is an answer, not an outage: it is reported as it is.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ReasonixError, errorMessage } from "../../errors.ts";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { parseServerList, parseServerResponse, type RegistryPage, type RegistryServer } from "./schema.ts";

export const DEFAULT_REGISTRY_URL = "https://registry.modelcontextprotocol.io";
export const DEFAULT_TIMEOUT_MS = 15_000;

export interface RegistryOptions {
  baseUrl: string;
  /** Where answers are cached (a directory; created on the first write). */
  cacheDir: string;
  timeoutMs?: number;
}

export interface Stale {
  /** Why the registry was not used. */
  error: string;
  /** When the cached answer was fetched (ISO time). */
  fetchedAt: string;
}

interface Cached {
  url: string;
  fetchedAt: string;
  body: unknown;
}

/** The registry could not be used: no answer, a timeout (`timeout`), an HTTP error, not JSON. */
export class RegistryHttpError extends ReasonixError {
  constructor(
    message: string,
    readonly outage: boolean,
    hint?: string,
    readonly timeout = false,
  ) {
    super("mcp-registry", message, { hint });
  }
}

const cacheFile = (dir: string, url: string) => join(dir, `${createHash("sha256").update(url).digest("hex").slice(0, 24)}.json`);

function readCache(dir: string, url: string): Cached | undefined {
  const f = cacheFile(dir, url);
  if (!existsSync(f)) return undefined;
  try {
    const c = JSON.parse(readFileSync(f, "utf8")) as Cached;
    return c.url === url ? c : undefined;
  } catch {
    return undefined;
  }
}

async function getJson(o: RegistryOptions, url: string): Promise<unknown> {
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const where = `the MCP Registry at ${o.baseUrl}`;
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(timeoutMs), redirect: "follow" });
  } catch (e) {
    const name = (e as Error).name;
    if (name === "TimeoutError" || name === "AbortError") throw new RegistryHttpError(`${where} did not answer within ${timeoutMs / 1000} s`, true, undefined, true);
    throw new RegistryHttpError(`cannot reach ${where}: ${errorMessage(e)}`, true, "check the network, or [mcp] registry_url in your config");
  }
  const text = await res.text().catch(() => "");
  if (!res.ok) {
    let detail = text.slice(0, 200).trim();
    try {
      const j = JSON.parse(text) as { error?: unknown; detail?: unknown; title?: unknown };
      detail = String(j.detail ?? j.error ?? j.title ?? detail);
    } catch {}
    throw new RegistryHttpError(`${where} answered HTTP ${res.status}${detail ? `: ${detail}` : ""}`, res.status >= 500 || res.status === 429);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new RegistryHttpError(`${where} answered with something that is not JSON (${url})`, false, "check [mcp] registry_url points at an MCP Registry (v0 API)");
  }
}

/** The answer for URL, from the registry or (during an outage) the cache. */
async function cachedGet(o: RegistryOptions, url: string): Promise<{ body: unknown; stale?: Stale }> {
  try {
    const body = await getJson(o, url);
    try {
      writeFileAtomic(cacheFile(o.cacheDir, url), JSON.stringify({ url, fetchedAt: new Date().toISOString(), body } satisfies Cached), { mode: 0o600, dirMode: 0o700 });
    } catch {
      /* a cache that cannot be written only costs the outage fallback */
    }
    return { body };
  } catch (e) {
    const c = e instanceof RegistryHttpError && e.outage ? readCache(o.cacheDir, url) : undefined;
    if (!c) throw e;
    return { body: c.body, stale: { error: errorMessage(e), fetchedAt: c.fetchedAt } };
  }
}

const base = (u: string) => u.replace(/\/+$/, "");

export async function listServers(o: RegistryOptions & { search?: string; limit?: number; cursor?: string }): Promise<RegistryPage & { stale?: Stale }> {
  const q = new URLSearchParams();
  if (o.search) q.set("search", o.search);
  q.set("version", "latest");
  if (o.limit) q.set("limit", String(o.limit));
  if (o.cursor) q.set("cursor", o.cursor);
  const { body, stale } = await cachedGet(o, `${base(o.baseUrl)}/v0/servers?${q}`);
  return { ...parseServerList(body), ...(stale ? { stale } : {}) };
}

/** One server, by its registry name, at VERSION (default the latest). */
export async function getServer(o: RegistryOptions & { name: string; version?: string }): Promise<RegistryServer & { stale?: Stale }> {
  const url = `${base(o.baseUrl)}/v0/servers/${encodeURIComponent(o.name)}/versions/${encodeURIComponent(o.version ?? "latest")}`;
  let got: { body: unknown; stale?: Stale };
  try {
    got = await cachedGet(o, url);
  } catch (e) {
    if (e instanceof RegistryHttpError && / HTTP 404/.test(e.message))
      throw new ReasonixError("mcp-registry", `the MCP Registry has no server "${o.name}"${o.version ? ` at version ${o.version}` : ""}`, { hint: `search for it: reasonix mcp browse ${o.name.split("/").at(-1)}` });
    throw e;
  }
  return { ...parseServerResponse(got.body, "the answer"), ...(got.stale ? { stale: got.stale } : {}) };
}
