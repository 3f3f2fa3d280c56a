import { ProviderError } from "./errors.ts";
import type { ChatRequest, ChatResult, Provider, StreamHandlers } from "./types.ts";

export interface RetryPolicy {
  /** Total attempts including the first (bounded). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error surfaces instead. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 120_000 };

export interface RetryNotice {
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface RetryHooks {
  /**
   * An attempt failed (whatever follows: a retry, giving up, or a cancel).
   * Anything it streamed is void: front ends drop its deltas.
   */
  onAttemptFailed?(n: { attempt: number; reason: string }): void;
  onRetry?(n: RetryNotice): void;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

/**
 * One model step with bounded retries. A whole attempt is repeated on a cut
 * stream: nothing from a failed attempt is committed (tool calls only run
 * after a complete answer), so a retry never duplicates a tool call.
 */
export async function chatWithRetry(
  provider: Provider,
  req: ChatRequest,
  handlers: StreamHandlers,
  signal: AbortSignal,
  policy: RetryPolicy = defaultRetryPolicy,
  hooksOrOnRetry: RetryHooks | ((n: RetryNotice) => void) = {},
): Promise<ChatResult> {
  const hooks: RetryHooks = typeof hooksOrOnRetry === "function" ? { onRetry: hooksOrOnRetry } : hooksOrOnRetry;
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await provider.chat(req, handlers, signal);
    } catch (e) {
      hooks.onAttemptFailed?.({ attempt, reason: signal.aborted ? "cancelled" : e instanceof Error ? e.message : String(e) });
      if (signal.aborted) throw e;
      if (!(e instanceof ProviderError) || !e.retryable || attempt >= policy.maxAttempts) {
        if (e instanceof ProviderError && e.retryable && attempt >= policy.maxAttempts) {
          throw new ProviderError(e.kind, `${e.message} (gave up after ${attempt} attempts in ${seconds(performance.now() - started)})`, { status: e.status, cause: e });
        }
        throw e;
      }
      let delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      if (e.retryAfterMs !== undefined) {
        if (e.retryAfterMs > policy.maxRetryAfterMs) {
          throw new ProviderError(e.kind, `${e.message}; the provider asks to wait ${Math.ceil(e.retryAfterMs / 1000)} s, longer than Reasonix waits`, { status: e.status, cause: e });
        }
        delay = e.retryAfterMs;
      }
      // Say how long this may go on: the attempts left, and for a stall how long each may wait.
      const left = policy.maxAttempts - attempt;
      const each = e.waitMs ? `, each waiting up to ${seconds(e.waitMs)}` : "";
      hooks.onRetry?.({ attempt, delayMs: delay, reason: `${e.message} (${left} more attempt${left === 1 ? "" : "s"}${each})` });
      await sleep(delay, signal);
    }
  }
}
