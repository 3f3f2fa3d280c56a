/**
 * Full-jitter exponential backoff (delay drawn uniformly from
 * [0, min(cap, base·2^(attempt-1))]), so many clients that lost the same link
 * do not come back in lockstep.
 */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** A connection that stayed up this long resets the attempt counter. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, capMs: 30_000, stableMs: 15_000 };

export function backoffDelay(attempt: number, p: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(p.capMs, p.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Sleep for `ms`, but wake early when `abort` fires or `wake` (polled every
 * `pollMs`) says the network is back. Resolves with what ended the wait.
 */
export async function sleepUnlessWoken(
  ms: number,
  opts: { signal?: AbortSignal; wake?: () => Promise<boolean>; pollMs?: number } = {},
): Promise<"elapsed" | "woken" | "aborted"> {
  const until = Date.now() + ms;
  const poll = opts.pollMs ?? 250;
  while (true) {
    if (opts.signal?.aborted) return "aborted";
    const left = until - Date.now();
    if (left <= 0) return "elapsed";
    const step = opts.wake ? Math.min(left, poll) : left;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, step);
      function done() {
        clearTimeout(t);
        opts.signal?.removeEventListener("abort", done);
        resolve();
      }
      opts.signal?.addEventListener("abort", done, { once: true });
    });
    if (opts.signal?.aborted) return "aborted";
    if (opts.wake && Date.now() < until && (await opts.wake().catch(() => false))) return "woken";
  }
}

/** Can we open a TCP connection to host:port right now? (Cheap: no SSH handshake.) */
export function tcpReachable(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return import("node:net").then(
    ({ connect }) =>
      new Promise<boolean>((resolve) => {
        const s = connect({ host, port });
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          s.destroy();
          resolve(ok);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
        s.once("connect", () => finish(true));
        s.once("error", () => finish(false));
      }),
  );
}
