import { ReasonixError } from "../errors.ts";

export type ProviderErrorKind =
  | "auth"
  | "rate_limit"
  | "server"
  /** The stream ended or broke before the model finished its answer. */
  | "stream_cut"
  | "network"
  | "bad_request"
  | "config"
  | "aborted";

/** A provider failure; `retryable` decides whether retry.ts tries again. */
export class ProviderError extends ReasonixError {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;
  constructor(kind: ProviderErrorKind, message: string, opts: { status?: number; retryAfterMs?: number; hint?: string; cause?: unknown } = {}) {
    super(`provider_${kind}`, message, { hint: opts.hint, cause: opts.cause });
    this.name = "ProviderError";
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }
  get retryable(): boolean {
    return this.kind === "rate_limit" || this.kind === "server" || this.kind === "stream_cut" || this.kind === "network";
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

/** Map an HTTP status from the provider to a typed error with a user-facing message. */
export function httpError(status: number, body: string, ctx: { provider: string; apiKeyEnv?: string; headers?: { get(name: string): string | null } }): ProviderError {
  const detail = extractMessage(body);
  const suffix = detail ? `: ${detail}` : "";
  if (status === 401 || status === 403) {
    const where = ctx.apiKeyEnv
      ? `check api_key_env ${ctx.apiKeyEnv}: its value in $REASONIX_HOME/.env is missing, wrong or expired`
      : `the provider needs a key: set api_key_env on [[providers]] "${ctx.provider}" and put the key in $REASONIX_HOME/.env`;
    return new ProviderError("auth", `provider "${ctx.provider}" rejected the credentials (HTTP ${status})${suffix}; ${where}`, { status });
  }
  if (status === 429) {
    return new ProviderError("rate_limit", `provider "${ctx.provider}" is rate limiting (HTTP 429)${suffix}`, { status, retryAfterMs: parseRetryAfter(ctx.headers) });
  }
  if (status >= 500 || status === 408 || status === 409) {
    return new ProviderError("server", `provider "${ctx.provider}" failed (HTTP ${status})${suffix}`, { status, retryAfterMs: parseRetryAfter(ctx.headers) });
  }
  return new ProviderError("bad_request", `provider "${ctx.provider}" refused the request (HTTP ${status})${suffix}`, { status });
}

function extractMessage(body: string): string {
  const text = body.trim();
  if (!text) return "";
  try {
    const j = JSON.parse(text) as any;
    const m = j?.error?.message ?? j?.message ?? j?.error;
    if (typeof m === "string") return m.slice(0, 500);
  } catch {}
  return text.slice(0, 300);
}
