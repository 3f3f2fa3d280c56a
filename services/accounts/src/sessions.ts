// Sessions: a 32-byte random token handed to the client once; the database
// keeps only sha256("<pepper>:<token>"), so a leaked copy cannot be replayed.
import type { Context, Next } from "hono";
import { ApiError } from "./errors.ts";
import { newToken, randomId, tokenHash } from "./crypto.ts";
import type { AuthedSession, Env, User } from "./types.ts";
import type { AppEnv } from "./app-env.ts";

const DAY = 86_400_000;
export const SESSION_TTL_MS = 30 * DAY;
/** Sliding renewal: a session used more than this long after its last renewal gets a fresh TTL. */
const RENEW_AFTER_MS = 3_600_000;
export const COOKIE = "rx_session";

export async function createSession(env: Env, user: User, kind: "cookie" | "token", userAgent: string | null, now: number) {
  const token = newToken();
  const id = randomId();
  const expiresAt = now + SESSION_TTL_MS;
  await env.DB.prepare("INSERT INTO sessions (id, token_hash, user_id, kind, user_agent, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    .bind(id, await tokenHash(env.PEPPER!, token), user.id, kind, userAgent?.slice(0, 256) ?? null, now, now, expiresAt)
    .run();
  return { token, id, expiresAt };
}

export function sessionCookie(token: string, maxAgeMs: number): string {
  return `${COOKIE}=${token}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}
export const clearCookie = () => `${COOKIE}=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0`;

function cookieToken(req: Request): string | undefined {
  const header = req.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === COOKIE) return v.join("=");
  }
  return undefined;
}

export function allowedOrigins(env: Env): string[] {
  return (env.ALLOWED_ORIGINS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Middleware for routes that need a signed-in user. Bearer tokens (CLI,
 * desktop) are taken as they are; a cookie only authenticates a state change
 * when the request's Origin is one of ALLOWED_ORIGINS.
 */
export async function requireSession(c: Context<AppEnv>, next: Next) {
  const env = c.env;
  const now = c.get("now");
  const auth = c.req.header("authorization");
  let token: string | undefined;
  let via: "bearer" | "cookie";
  if (auth !== undefined) {
    const m = /^Bearer ([A-Za-z0-9_-]{16,128})$/.exec(auth);
    if (!m) throw new ApiError(401, "unauthenticated", "Authorization must be \"Bearer <token>\"");
    token = m[1];
    via = "bearer";
  } else {
    token = cookieToken(c.req.raw);
    via = "cookie";
    if (token !== undefined && !SAFE.has(c.req.method)) {
      const origin = c.req.header("origin");
      if (!origin || !allowedOrigins(env).includes(origin)) throw new ApiError(403, "origin_not_allowed", "a cookie-authenticated change needs an allowed Origin header");
    }
  }
  if (!token) throw new ApiError(401, "unauthenticated", "sign in first: no session cookie or Bearer token");
  const row = await env.DB.prepare(
    `SELECT s.id AS sid, s.kind AS skind, s.expires_at AS sexp, u.* FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.expires_at > ?`,
  )
    .bind(await tokenHash(env.PEPPER!, token), now)
    .first<User & { sid: string; skind: "cookie" | "token"; sexp: number }>();
  if (!row) throw new ApiError(401, "unauthenticated", "the session is unknown, revoked or expired");
  let expiresAt = row.sexp;
  if (expiresAt - now < SESSION_TTL_MS - RENEW_AFTER_MS) {
    expiresAt = now + SESSION_TTL_MS;
    await env.DB.prepare("UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?").bind(now, expiresAt, row.sid).run();
  }
  const { sid, skind, sexp: _, ...user } = row;
  const session: AuthedSession = { id: sid, userId: user.id, kind: skind, expiresAt };
  c.set("session", session);
  c.set("user", user as User);
  await next();
  if (via === "cookie" && expiresAt !== row.sexp && !c.res.headers.has("set-cookie")) c.res.headers.append("set-cookie", sessionCookie(token, SESSION_TTL_MS));
}
