import { ReasonixError } from "../errors.ts";
import { homePaths } from "../home.ts";

export type ProviderErrorKind =
  | "auth"
  | "rate_limit"
  | "server"
  /** The stream ended or broke before the model finished its answer. */
  | "stream_cut"
  | "network"
  /** No byte within first_byte_timeout_seconds / idle_timeout_seconds. */
  | "stalled"
  /** A 200 that is not an event stream (HTML page, plain JSON): retrying will not help. */
  | "bad_response"
  | "bad_request"
  | "config"
  | "aborted";

/** A provider failure; `retryable` decides whether retry.ts tries again. */
export class ProviderError extends ReasonixError {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;
  /** A stall: how long the attempt waited (so a retry can say how long the next ones may take). */
  readonly waitMs?: number;
  constructor(kind: ProviderErrorKind, message: string, opts: { status?: number; retryAfterMs?: number; waitMs?: number; hint?: string; cause?: unknown } = {}) {
    super(`provider_${kind}`, message, { hint: opts.hint, cause: opts.cause });
    this.name = "ProviderError";
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
    this.waitMs = opts.waitMs;
  }
  get retryable(): boolean {
    return this.kind === "rate_limit" || this.kind === "server" || this.kind === "stream_cut" || this.kind === "network" || this.kind === "stalled";
  }
}

/** Parse Retry-After (seconds or HTTP date) and the non-standard retry-after-ms. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const v = headers.get("retry-after");
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Map an HTTP status from the provider to a typed error with a user-facing message (who, status, next step). */
export function httpError(status: number, body: string, ctx: { provider: string; host?: string; apiKeyEnv?: string; headers?: { get(name: string): string | null } }): ProviderError {
  const detail = extractMessage(body);
  const suffix = detail ? `: ${detail}` : "";
  const who = `provider "${ctx.provider}"${ctx.host ? ` (${ctx.host})` : ""}`;
  if (status === 401 || status === 403) {
    const where = ctx.apiKeyEnv
      ? `check api_key_env ${ctx.apiKeyEnv}: its value in ${homePaths().dotenv} is missing, wrong or expired (replace it: reasonix setup key ${ctx.provider})`
      : `the provider needs a key: set api_key_env on [[providers]] "${ctx.provider}" and put the key in ${homePaths().dotenv}`;
    return new ProviderError("auth", `${who} rejected the credentials (HTTP ${status})${suffix}; ${where}`, { status });
  }
  if (status === 429) {
    return new ProviderError("rate_limit", `${who} is rate limiting (HTTP 429)${suffix}; wait a little, or check the account's rate limits and quota`, { status, retryAfterMs: parseRetryAfter(ctx.headers) });
  }
  if (status >= 500 || status === 408 || status === 409) {
    return new ProviderError("server", `${who} failed (HTTP ${status})${suffix}; try again later or pick another [[providers]] entry with --model`, { status, retryAfterMs: parseRetryAfter(ctx.headers) });
  }
  const next = status === 404 ? `; check base_url and model on [[providers]] "${ctx.provider}"` : "";
  return new ProviderError("bad_request", `${who} refused the request (HTTP ${status})${suffix}${next}`, { status });
}

function extractMessage(body: string): string {
  const text = body.trim();
  if (!text) return "";
  try {
    const j = JSON.parse(text) as any;
    const m = j?.error?.message ?? j?.message ?? j?.error;
    if (typeof m === "string") return m.slice(0, 500);
  } catch {}
  if (text.startsWith("<")) {
    const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(text)?.[1]?.trim();
    return title ? `an HTML page titled "${title}"` : "an HTML page";
  }
  return text.slice(0, 300);
}
