// Unauthenticated routes: sign-up, email verification, login, password reset.
// Sign-up and forgot-password answer identically whether or not the address
// has an account: the differing work happens after the response (waitUntil).
import { Hono, type Context } from "hono";
import { ApiError, invalidField } from "../errors.ts";
import { dummyHash, hashPassword, newToken, randomId, tokenHash, verifyPassword } from "../crypto.ts";
import { mailerFor, messages, type Mailer } from "../mailer.ts";
import { clientIp, rateLimit } from "../ratelimit.ts";
import { createSession, sessionCookie, SESSION_TTL_MS } from "../sessions.ts";
import { email as emailField, onlyFields, password as passwordField, readJson, str } from "../validate.ts";
import { me } from "../view.ts";
import type { AppEnv } from "../app-env.ts";
import type { Env, User } from "../types.ts";
import { trackAfter } from "../work.ts";

const HOUR = 3_600_000;
const VERIFY_TTL_MS = 24 * HOUR;
const RESET_TTL_MS = HOUR;

export function iterations(env: Env): number {
  const dev = Number(env.DEV_PBKDF2_ITERATIONS);
  return env.DEV_MODE === "1" && Number.isInteger(dev) && dev > 0 && dev <= 100_000 ? dev : 100_000;
}

function requireMailer(env: Env, now: number): Mailer {
  const m = mailerFor(env, now);
  if (!m) throw new ApiError(503, "mail_unconfigured", "email delivery is not configured (MAIL_API_URL and the MAIL_API_KEY secret)");
  return m;
}

/** Run after the response; failures are logged without message contents. */
function later(c: Context<AppEnv>, what: string, task: () => Promise<void>) {
  c.executionCtx.waitUntil(trackAfter(task()).catch((e: unknown) => console.error(`${what} failed: ${e instanceof Error ? e.message : String(e)}`)));
}

async function issueEmailToken(env: Env, userId: string, purpose: "verify" | "reset", now: number): Promise<string> {
  const token = newToken();
  const ttl = purpose === "verify" ? VERIFY_TTL_MS : RESET_TTL_MS;
  await env.DB.prepare("INSERT INTO email_tokens (token_hash, user_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
    .bind(await tokenHash(env.PEPPER!, token), userId, purpose, now, now + ttl)
    .run();
  return token;
}

/** Mark a token used if it is unused, unexpired and of this purpose; its user id, or null. */
async function consumeEmailToken(env: Env, token: string, purpose: "verify" | "reset", now: number): Promise<string | null> {
  const row = await env.DB.prepare("UPDATE email_tokens SET used_at = ?1 WHERE token_hash = ?2 AND purpose = ?3 AND used_at IS NULL AND expires_at > ?1 RETURNING user_id")
    .bind(now, await tokenHash(env.PEPPER!, token), purpose)
    .first<{ user_id: string }>();
  return row?.user_id ?? null;
}

const ACCEPTED = { status: "accepted", message: "If the address can be used, an email is on its way." };

export const auth = new Hono<AppEnv>();

auth.post("/signup", async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["email", "password"]);
  const email = emailField(body);
  const password = passwordField(body);
  const now = c.get("now");
  await rateLimit(c.env, now, "signup", { ip: clientIp(c.req.raw), email });
  const mailer = requireMailer(c.env, now);
  // The same work on both paths before answering: one PBKDF2 and one lookup.
  const hash = await hashPassword(password, iterations(c.env));
  const existing = await c.env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).first<{ id: string }>();
  later(c, "signup mail", async () => {
    if (existing) return mailer.send(messages.exists(c.env, email));
    const id = randomId();
    const inserted = await c.env.DB.prepare("INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(email) DO NOTHING RETURNING id")
      .bind(id, email, hash, now, now)
      .first();
    if (!inserted) return mailer.send(messages.exists(c.env, email));
    await mailer.send(messages.verify(c.env, email, await issueEmailToken(c.env, id, "verify", now)));
  });
  return c.json(ACCEPTED, 202);
});

auth.post("/verify-email", async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["token"]);
  const token = str(body, "token", { min: 1, max: 256 });
  const now = c.get("now");
  await rateLimit(c.env, now, "verify", { ip: clientIp(c.req.raw) });
  const userId = await consumeEmailToken(c.env, token, "verify", now);
  if (!userId) throw new ApiError(400, "invalid_token", "token: unknown, already used or expired", "token");
  await c.env.DB.prepare("UPDATE users SET email_verified_at = COALESCE(email_verified_at, ?1), updated_at = ?1 WHERE id = ?2").bind(now, userId).run();
  return c.json({ verified: true });
});

auth.post("/login", async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["email", "password", "mode"]);
  const email = emailField(body);
  const password = str(body, "password", { min: 1, max: 1024 });
  const mode = body.mode ?? "cookie";
  if (mode !== "cookie" && mode !== "token") throw invalidField("mode", 'must be "cookie" or "token"');
  const now = c.get("now");
  await rateLimit(c.env, now, "login", { ip: clientIp(c.req.raw), email });
  const iter = iterations(c.env);
  const user = await c.env.DB.prepare("SELECT * FROM users WHERE email = ?").bind(email).first<User>();
  // Unknown addresses are checked against a dummy hash so both answers take as long.
  const v = await verifyPassword(password, user?.password_hash ?? (await dummyHash(iter)), iter);
  if (!user || !v.ok) throw new ApiError(401, "invalid_credentials", "email or password is wrong");
  if (user.email_verified_at === null) throw new ApiError(403, "email_not_verified", "confirm your email address first (see the email sent at sign-up)");
  if (v.needsRehash) {
    await c.env.DB.prepare("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?").bind(await hashPassword(password, iter), now, user.id).run();
  }
  const s = await createSession(c.env, user, mode, c.req.header("user-agent") ?? null, now);
  const out = { user: me(user), session: { id: s.id, expiresAt: new Date(s.expiresAt).toISOString() } };
  if (mode === "token") return c.json({ ...out, token: s.token });
  c.header("set-cookie", sessionCookie(s.token, SESSION_TTL_MS));
  return c.json(out);
});

auth.post("/forgot-password", async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["email"]);
  const email = emailField(body);
  const now = c.get("now");
  await rateLimit(c.env, now, "forgot", { ip: clientIp(c.req.raw), email });
  const mailer = requireMailer(c.env, now);
  later(c, "reset mail", async () => {
    const user = await c.env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).first<{ id: string }>();
    if (!user) return;
    await mailer.send(messages.reset(c.env, email, await issueEmailToken(c.env, user.id, "reset", now)));
  });
  return c.json(ACCEPTED, 202);
});

auth.post("/reset-password", async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["token", "newPassword"]);
  const token = str(body, "token", { min: 1, max: 256 });
  const password = passwordField(body, "newPassword");
  const now = c.get("now");
  await rateLimit(c.env, now, "reset", { ip: clientIp(c.req.raw) });
  const userId = await consumeEmailToken(c.env, token, "reset", now);
  if (!userId) throw new ApiError(400, "invalid_token", "token: unknown, already used or expired", "token");
  const hash = await hashPassword(password, iterations(c.env));
  // Following the link proves control of the address, so it also verifies it.
  const [, , revoked] = await c.env.DB.batch([
    c.env.DB.prepare("UPDATE users SET password_hash = ?1, email_verified_at = COALESCE(email_verified_at, ?2), updated_at = ?2 WHERE id = ?3").bind(hash, now, userId),
    c.env.DB.prepare("UPDATE email_tokens SET used_at = ?1 WHERE user_id = ?2 AND purpose = 'reset' AND used_at IS NULL").bind(now, userId),
    c.env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(userId),
  ]);
  return c.json({ reset: true, revokedSessions: revoked!.meta.changes ?? 0 });
});
