/**
 * The watch on one provider attempt: first-byte and idle timeouts that turn
 * a stalled stream into a retryable error naming its setting, "still
 * waiting" notices, and the refusal of a 200 that is not an event stream.
 */
import { ProviderError } from "./errors.ts";
import { who, type ProviderCtx } from "./http.ts";
import { hostOf, isOpenAIReasoningModel } from "./reasoning.ts";
import { isLoopbackHost } from "../serve/loopback.ts";
import type { ProviderConfig, WaitingNotice } from "./types.ts";
import { traceMark } from "../trace.ts";

const secs = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** Default wait for the first byte of an answer: a provider that is up answers within tens of seconds. */
export const FIRST_BYTE_TIMEOUT_SECONDS = 30;
/** … where silence before the first byte is normal: a server on this machine loading its model, OpenAI reasoning models on Chat Completions (nothing is streamed while they think). */
export const SLOW_START_TIMEOUT_SECONDS = 300;
/** Default silence allowed mid-answer (thinking streams keep sending). */
export const IDLE_TIMEOUT_SECONDS = 120;

/** The first-byte and idle limits of an entry: its own settings, else the defaults above. */
export function streamTimeouts(cfg: ProviderConfig): { firstByteMs: number; idleMs: number } {
  const slowStart = isLoopbackHost(hostOf(cfg.base_url)) || (cfg.kind === "openai" && cfg.capability !== "plain" && (cfg.capability === "openai-reasoning" || isOpenAIReasoningModel(cfg.model ?? "")));
  const given = (v: number | undefined) => (v && v > 0 ? v : undefined);
  return {
    firstByteMs: 1000 * (given(cfg.first_byte_timeout_seconds) ?? (slowStart ? SLOW_START_TIMEOUT_SECONDS : FIRST_BYTE_TIMEOUT_SECONDS)),
    idleMs: 1000 * (given(cfg.idle_timeout_seconds) ?? IDLE_TIMEOUT_SECONDS),
  };
}

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
    private readonly onWaiting: ((n: WaitingNotice) => void) | undefined,
    outer: AbortSignal,
  ) {
    ({ firstByteMs: this.firstByteMs, idleMs: this.idleMs } = streamTimeouts(cfg));
    this.idleNotice = Math.min(10_000, this.idleMs / 2);
    this.signal = AbortSignal.any([outer, this.ac.signal]);
  }

  private readonly idleNotice: number;
  private limit = () => (this.phase === "first_byte" ? this.firstByteMs : this.idleMs);
  /** Notices start at 10 s of silence, or halfway to a shorter timeout. */
  private noticeStart = () => Math.min(10_000, this.limit() / 2);

  start(): void {
    this.phase = "first_byte";
    this.reset();
    this.arm(this.nextNotice);
  }

  /** A byte arrived. */
  byte(): void {
    if (this.phase === "idle") {
      this.last = performance.now();
      this.nextNotice = this.idleNotice;
      return;
    }
    this.phase = "idle";
    this.reset();
    this.arm(this.nextNotice);
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
        ? new ProviderError("stalled", `${who(this.ctx)} sent nothing for ${secs(limit)} after the request (first_byte_timeout_seconds = ${limit / 1000}); if the model needs longer to start, raise first_byte_timeout_seconds on [[providers]] "${name}"`, { waitMs: limit })
        : new ProviderError("stalled", `${who(this.ctx)} went silent mid-answer: no data for ${secs(limit)} (idle_timeout_seconds = ${limit / 1000}); raise idle_timeout_seconds on [[providers]] "${name}" if the model pauses that long`, { waitMs: limit });
    this.ac.abort(this.error);
    this.reader?.cancel(this.error).catch(() => {});
  }

  /**
   * A fetch() for this attempt whose body the caller reads itself, telling
   * the watch of each chunk (`pumpSse` in sse.ts does): the watch's signal,
   * the first-byte timer, non-SSE 200s refused. One stream and one promise
   * less per chunk than `fetch`, which matters when every token is a chunk.
   */
  open = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    // Callers pass this.signal, or a signal that follows it (the OpenAI SDK links its own to it).
    const signal = init.signal ?? this.signal;
    this.start();
    traceMark("request");
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal });
      traceMark("response");
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
    if (!res.ok || !res.body) this.stop();
    return res;
  };

  /** A fetch() for this attempt (for a client that reads the body itself, like the OpenAI SDK): `open`, with the timers on the body. */
  fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const res = await this.open(input, init);
    if (!res.ok || !res.body) return res;
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
    `${who(ctx)} answered HTTP 200 with content-type ${ct} instead of an event stream${detail}; check base_url on [[providers]] "${ctx.provider}" (it should be the API root, e.g. ${ctx.origin ?? `https://${ctx.host ?? "host"}`}/v1) and that the endpoint streams`,
  );
}
