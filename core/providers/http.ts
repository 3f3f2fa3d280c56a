import { ProviderError, httpError } from "./errors.ts";
import type { ProviderConfig } from "./types.ts";

/** A fetch() that may add its own signal and checks (a StreamWatch's, stream-watch.ts). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Join a base URL and a path without doubling or dropping slashes. */
export const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;

/** host[:port] of a URL, for messages (never the path, which may carry a key). */
export const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** Who a message is about: the [[providers]] entry and its host. */
export interface ProviderCtx {
  provider: string;
  host?: string;
  /** Scheme, host and port of the entry's URL ("http://127.0.0.1:11434"), for examples in hints. */
  origin?: string;
  apiKeyEnv?: string;
  /** Reached through a provider proxy on the user's own machine (proxy.ts): its absence means that link is down. */
  viaProxy?: boolean;
}

/** The header a provider proxy (proxy.ts) checks (it also takes the secret as the entry's key). */
export const PROXY_SECRET_HEADER = "x-reasonix-proxy-secret";
/**
 * The api_key_env of entries behind a provider proxy: resolved from the proxy's
 * manifest file (the per-connection secret), never from .env or the environment.
 */
export const PROXY_KEY_ENV = "REASONIX_PROVIDER_PROXY_SECRET";

const originOf = (url: string): string | undefined => {
  try {
    const o = new URL(url).origin;
    return o === "null" ? undefined : o;
  } catch {
    return undefined;
  }
};

export const ctxOf = (cfg: ProviderConfig, url = cfg.base_url ?? ""): ProviderCtx => ({
  provider: cfg.name,
  host: hostOf(url),
  ...(originOf(url) ? { origin: originOf(url) } : {}),
  apiKeyEnv: cfg.api_key_env,
  ...(cfg.api_key_env === PROXY_KEY_ENV ? { viaProxy: true } : {}),
});

/** `provider "x" (host)` */
export const who = (ctx: ProviderCtx): string => `provider "${ctx.provider}"${ctx.host ? ` (${ctx.host})` : ""}`;

const NET_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused (nothing listens there)",
  ECONNRESET: "the connection was reset by the server",
  EPIPE: "the connection was closed by the server",
  ENOTFOUND: "host name not found (DNS)",
  EAI_AGAIN: "host name lookup failed (DNS, temporary)",
  ETIMEDOUT: "the connection timed out",
  ECONNABORTED: "the connection was aborted",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ConnectionRefused: "connection refused (nothing listens there)",
  ConnectionClosed: "the connection was closed by the server",
  FailedToOpenSocket: "could not open a connection",
};

/** A network failure in plain words: the error code's meaning, never runtime internals. */
export function networkReason(e: unknown): string {
  const seen = new Set<unknown>();
  for (let x: any = e; x && !seen.has(x); x = x.cause) {
    seen.add(x);
    const code = typeof x.code === "string" ? x.code : undefined;
    if (code && NET_CODES[code]) return NET_CODES[code]!;
    if (code && /CERT|SSL|TLS/i.test(code)) return `TLS certificate problem (${code})`;
  }
  const msg = String((e as any)?.cause?.message ?? (e as any)?.message ?? e);
  // Bun appends advice meant for its own developers ("pass `verbose: true` …").
  const clean = msg.split(/\.? ?(For more information|pass `verbose)/)[0]!.split("\n")[0]!.trim();
  return clean || "the connection failed";
}

export function networkError(ctx: ProviderCtx, e: unknown, midStream: boolean): ProviderError {
  const reason = networkReason(e);
  if (ctx.viaProxy) {
    const msg = `laptop link down, retrying: ${who(ctx)} is reached through the provider proxy of the machine that ran \`reasonix remote connect\` (${reason}); model calls resume once that connection is back`;
    return new ProviderError(midStream ? "stream_cut" : "network", msg, { cause: e });
  }
  if (midStream) return new ProviderError("stream_cut", `${who(ctx)}: the stream broke mid-answer (${reason})`, { cause: e });
  return new ProviderError("network", `cannot reach ${who(ctx)}: ${reason}; check base_url on [[providers]] "${ctx.provider}" and that the server is up`, { cause: e });
}

/** fetch() with provider-flavoured errors (network failures, HTTP status mapping). */
export async function providerFetch(url: string, init: RequestInit, ctx: ProviderCtx, doFetch: typeof fetch | FetchLike = fetch): Promise<Response> {
  let res: Response;
  try {
    res = await doFetch(url, init);
  } catch (e) {
    if (e instanceof ProviderError) throw e;
    if (init.signal?.aborted) throw new ProviderError("aborted", "request cancelled", { cause: e });
    throw networkError({ host: hostOf(url), ...ctx }, e, false);
  }
  if (!res.ok) {
    const body = await res.text().catch(() => "");
    throw httpError(res.status, body, { ...ctx, host: ctx.host ?? hostOf(url), headers: res.headers });
  }
  return res;
}

/** GET a model list in the OpenAI (`{data:[{id}]}`) or Anthropic shape. */
export async function fetchModelList(url: string, headers: Record<string, string>, ctx: ProviderCtx, signal?: AbortSignal): Promise<string[]> {
  const res = await providerFetch(url, { headers, signal }, { ...ctx, host: hostOf(url) });
  const j = (await res.json().catch(() => null)) as any;
  const list = Array.isArray(j?.data) ? j.data : Array.isArray(j?.models) ? j.models : Array.isArray(j) ? j : null;
  if (!list) throw new ProviderError("bad_request", `provider "${ctx.provider}": ${url} did not return a model list`);
  return list.map((m: any) => (typeof m === "string" ? m : String(m?.id ?? m?.name ?? ""))).filter(Boolean);
}
