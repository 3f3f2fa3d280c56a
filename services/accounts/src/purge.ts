// Housekeeping, run daily by the cron trigger: drop expired sessions, old
// email tokens and rate-limit windows, and sign-ups never confirmed within a
// week (which frees an address someone else registered but could not verify).
import type { Env } from "./types.ts";

const DAY = 86_400_000;
export const UNVERIFIED_TTL_MS = 7 * DAY;

export async function purge(env: Env, now: number): Promise<Record<string, number>> {
  const stale = now - UNVERIFIED_TTL_MS;
  const r = await env.DB.batch([
    env.DB.prepare("DELETE FROM sessions WHERE expires_at <= ?").bind(now),
    env.DB.prepare("DELETE FROM email_tokens WHERE expires_at <= ?1 - 86400000 OR (used_at IS NOT NULL AND used_at <= ?1 - 86400000) OR user_id IN (SELECT id FROM users WHERE email_verified_at IS NULL AND created_at <= ?2)").bind(now, stale),
    env.DB.prepare("DELETE FROM users WHERE email_verified_at IS NULL AND created_at <= ?").bind(stale),
    env.DB.prepare("DELETE FROM rate_limits WHERE window_start <= ?").bind(now - DAY),
    env.DB.prepare("DELETE FROM outbox WHERE created_at <= ?").bind(now - UNVERIFIED_TTL_MS),
  ]);
  const n = (i: number) => r[i]!.meta.changes ?? 0;
  return { sessions: n(0), emailTokens: n(1), unverifiedUsers: n(2), rateLimits: n(3), outbox: n(4) };
}
