import { ProviderError, httpError } from "./errors.ts";
import type { ProviderConfig } from "./types.ts";

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
  apiKeyEnv?: string;
}

export const ctxOf = (cfg: ProviderConfig, url = cfg.base_url ?? ""): ProviderCtx => ({ provider: cfg.name, host: hostOf(url), apiKeyEnv: cfg.api_key_env });

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
  if (midStream) return new ProviderError("stream_cut", `${who(ctx)}: the stream broke mid-answer (${reason})`, { cause: e });
  return new ProviderError("network", `cannot reach ${who(ctx)}: ${reason}; check base_url on [[providers]] "${ctx.provider}" and that the server is up`, { cause: e });
}

const secs = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * Watches one attempt's stream: a first-byte and an idle timer, and "still
 * waiting" notices from 10 s on (sooner when the timeout itself is short).
 * One timer, re-armed only when it fires, so a byte costs one clock read.
 */
export class StreamWatch {
  readonly signal: AbortSignal;
  error?: ProviderError;
  private readonly ac = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private phase: "first_byte" | "idle" = "first_byte";
  private last = 0;
  private nextNotice = 0;
  private readonly firstByteMs: number;
  private readonly idleMs: number;
  private reader?: ReadableStreamDefaultReader<Uint8Array>;

  constructor(
    private readonly cfg: ProviderConfig,
    private readonly ctx: ProviderCtx,
    private readonly onWaiting: ((n: import("./types.ts").WaitingNotice) => void) | undefined,
    outer: AbortSignal,
  ) {
    this.firstByteMs = 1000 * (cfg.first_byte_timeout_seconds && cfg.first_byte_timeout_seconds > 0 ? cfg.first_byte_timeout_seconds : 300);
    this.idleMs = 1000 * (cfg.idle_timeout_seconds && cfg.idle_timeout_seconds > 0 ? cfg.idle_timeout_seconds : 120);
    this.signal = AbortSignal.any([outer, this.ac.signal]);
  }

  private limit = () => (this.phase === "first_byte" ? this.firstByteMs : this.idleMs);
  private noticeStart = () => Math.min(10_000, this.limit() / 2);

  start(): void {
    this.phase = "first_byte";
    this.reset();
    this.arm(this.nextNotice);
  }

  /** A byte arrived. */
  byte(): void {
    this.last = performance.now();
    if (this.phase === "idle") {
      if (this.nextNotice !== this.idleNotice) this.nextNotice = this.idleNotice;
      return;
    }
    this.phase = "idle";
    this.reset();
    this.arm(this.nextNotice);
  }
  private get idleNotice(): number {
    return Math.min(10_000, this.idleMs / 2);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  track(reader: ReadableStreamDefaultReader<Uint8Array>): void {
    this.reader = reader;
  }

  private reset(): void {
    this.last = performance.now();
    this.nextNotice = this.noticeStart();
  }

  private arm(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.tick, Math.max(1, ms));
  }

  private readonly tick = (): void => {
    const quiet = performance.now() - this.last;
    const limit = this.limit();
    if (quiet >= limit) return this.fail(limit);
    if (quiet >= this.nextNotice) {
      const setting = this.phase === "first_byte" ? "first_byte_timeout_seconds" : "idle_timeout_seconds";
      try {
        this.onWaiting?.({ phase: this.phase, seconds: Math.round(quiet / 100) / 10, timeoutSeconds: limit / 1000, setting });
      } catch {}
      while (this.nextNotice <= quiet) this.nextNotice *= 2;
    }
    this.arm(Math.min(limit, this.nextNotice) - quiet);
  };

  private fail(limit: number): void {
    this.stop();
    const name = this.cfg.name;
    this.error =
      this.phase === "first_byte"
        ? new ProviderError("stalled", `${who(this.ctx)} sent nothing for ${secs(limit)} after the request (first_byte_timeout_seconds = ${limit / 1000}); if the model needs longer to start, raise first_byte_timeout_seconds on [[providers]] "${name}"`)
        : new ProviderError("stalled", `${who(this.ctx)} went silent mid-answer: no data for ${secs(limit)} (idle_timeout_seconds = ${limit / 1000}); raise idle_timeout_seconds on [[providers]] "${name}" if the model pauses that long`);
    this.ac.abort(this.error);
    this.reader?.cancel(this.error).catch(() => {});
  }

  /** A fetch() for this attempt: the watch's signal, timers on the body, non-SSE 200s refused. */
  fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    // Callers pass this.signal, or a signal that follows it (the OpenAI SDK links its own to it).
    const signal = init.signal ?? this.signal;
    this.start();
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal });
    } catch (e) {
      this.stop();
      throw this.error ?? e;
    }
    if (res.ok) {
      try {
        res = await checkEventStream(res, this.ctx);
      } catch (e) {
        this.stop();
        this.error = e as ProviderError;
        throw e;
      }
    }
    if (!res.ok || !res.body) {
      this.stop();
      return res;
    }
    const reader = res.body.getReader();
    this.track(reader);
    const body = new ReadableStream<Uint8Array>({
      pull: async (c) => {
        try {
          const { value, done } = await reader.read();
          if (done) {
            this.stop();
            c.close();
            return;
          }
          this.byte();
          c.enqueue(value);
        } catch (e) {
          this.stop();
          c.error(this.error ?? e);
        }
      },
      cancel: (reason) => {
        this.stop();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

const SSE_START = /^\s*(data|event|id|retry)?:/;

/**
 * A 200 that is an HTML page or plain JSON (proxy login page, non-streaming
 * endpoint, error as 200) is refused with its content-type. A stream that is
 * only labelled JSON/HTML but starts like SSE goes through.
 */
async function checkEventStream(res: Response, ctx: ProviderCtx): Promise<Response> {
  const type = (res.headers.get("content-type") ?? "").toLowerCase();
  if (type.includes("event-stream") || !/json|html|xml/.test(type) || !res.body) return res;
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  const head: Uint8Array[] = [];
  let text = "";
  let ended = false;
  try {
    while (text.length < 4096 && head.length < 64) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      head.push(value);
      text += dec.decode(value, { stream: true });
      if (text.trim() && SSE_START.test(text)) {
        // Mislabelled event stream: hand on what was read, then the rest.
        const rest = new ReadableStream<Uint8Array>({
          start: (c) => head.forEach((h) => c.enqueue(h)),
          pull: async (c) => {
            const r = await reader.read();
            if (r.done) c.close();
            else c.enqueue(r.value);
          },
          cancel: (why) => reader.cancel(why),
        });
        return new Response(rest, { status: res.status, statusText: res.statusText, headers: res.headers });
      }
    }
  } catch {}
  if (!ended) await reader.cancel().catch(() => {});
  let detail = "";
  if (type.includes("json")) {
    try {
      const j = JSON.parse(text) as any;
      const m = j?.error?.message ?? j?.message ?? j?.error;
      if (typeof m === "string") detail = `: ${m.slice(0, 300)}`;
    } catch {}
  } else if (type.includes("html")) {
    const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(text)?.[1]?.trim();
    if (title) detail = ` (page title "${title}")`;
  }
  const ct = type.split(";")[0]!.trim();
  throw new ProviderError(
    "bad_response",
    `${who(ctx)} answered HTTP 200 with content-type ${ct} instead of an event stream${detail}; check base_url on [[providers]] "${ctx.provider}" (it should be the API root, e.g. https://${ctx.host ?? "host"}/v1) and that the endpoint streams`,
  );
}

/** fetch() with provider-flavoured errors (network failures, HTTP status mapping). */
export async function providerFetch(url: string, init: RequestInit, ctx: ProviderCtx, doFetch: typeof fetch | StreamWatch["fetch"] = fetch): Promise<Response> {
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
