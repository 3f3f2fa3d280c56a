// Fixed-window counters in D1, per client IP and per email. Keys are
// peppered hashes, so the table holds no addresses.
import { ApiError } from "./errors.ts";
import { sha256Hex } from "./crypto.ts";
import type { Env } from "./types.ts";

export interface Limit {
  max: number;
  windowMs: number;
}

const MIN = 60_000;
export const LIMITS = {
  signup: { ip: { max: 10, windowMs: 60 * MIN }, email: { max: 5, windowMs: 60 * MIN } },
  login: { ip: { max: 30, windowMs: 15 * MIN }, email: { max: 10, windowMs: 15 * MIN } },
  forgot: { ip: { max: 10, windowMs: 60 * MIN }, email: { max: 3, windowMs: 60 * MIN } },
  verify: { ip: { max: 30, windowMs: 15 * MIN } },
  reset: { ip: { max: 30, windowMs: 15 * MIN } },
} satisfies Record<string, { ip: Limit; email?: Limit }>;

const UPSERT = `INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1)
ON CONFLICT(key) DO UPDATE SET
  count = CASE WHEN rate_limits.window_start <= ?2 - ?3 THEN 1 ELSE rate_limits.count + 1 END,
  window_start = CASE WHEN rate_limits.window_start <= ?2 - ?3 THEN ?2 ELSE rate_limits.window_start END
RETURNING count, window_start`;

/** The client's address as Cloudflare's edge reports it (the edge sets this header; clients cannot). */
export const clientIp = (req: Request) => req.headers.get("cf-connecting-ip") ?? "unknown";

/** Count one attempt against each subject; 429 with Retry-After once any is over its limit. */
export async function rateLimit(env: Env, now: number, action: keyof typeof LIMITS, subjects: { ip: string; email?: string }): Promise<void> {
  const limits = LIMITS[action] as { ip: Limit; email?: Limit };
  const checks: [string, Limit][] = [[`ip:${subjects.ip}`, limits.ip]];
  if (subjects.email !== undefined && limits.email) checks.push([`email:${subjects.email}`, limits.email]);
  const stmts = await Promise.all(
    checks.map(async ([subject, limit]) => env.DB.prepare(UPSERT).bind(`${action}:${await sha256Hex(`${env.PEPPER}:${subject}`)}`, now, limit.windowMs)),
  );
  const results = await env.DB.batch(stmts);
  let retryAfter = 0;
  results.forEach((r, i) => {
    const row = r.results[0] as { count: number; window_start: number } | undefined;
    const limit = checks[i]![1];
    if (row && row.count > limit.max) retryAfter = Math.max(retryAfter, Math.ceil((row.window_start + limit.windowMs - now) / 1000));
  });
  if (retryAfter > 0) {
    throw new ApiError(429, "rate_limited", `too many ${action} attempts; retry in ${retryAfter} s`, undefined, { "Retry-After": String(Math.max(1, retryAfter)) });
  }
}
