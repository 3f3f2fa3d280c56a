// Routes for the signed-in user: sessions, profile, password, deletion.
import { Hono } from "hono";
import { ApiError } from "../errors.ts";
import { hashPassword, verifyPassword } from "../crypto.ts";
import { clientIp, rateLimit } from "../ratelimit.ts";
import { clearCookie, requireSession } from "../sessions.ts";
import { avatarUrl, onlyFields, optionalText, password as passwordField, readJson, str, username } from "../validate.ts";
import { iso, me } from "../view.ts";
import { iterations } from "./auth.ts";
import type { AppEnv } from "../app-env.ts";

export const account = new Hono<AppEnv>();
// requireSession is attached per route: a sub-app-wide use() would also cover
// the public routes mounted beside these under /v1.

account.post("/logout", requireSession, async (c) => {
  await c.env.DB.prepare("DELETE FROM sessions WHERE id = ?").bind(c.get("session").id).run();
  if (c.get("session").kind === "cookie") c.header("set-cookie", clearCookie());
  return c.body(null, 204);
});

account.post("/logout-all", requireSession, async (c) => {
  await c.env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(c.get("user").id).run();
  if (c.get("session").kind === "cookie") c.header("set-cookie", clearCookie());
  return c.body(null, 204);
});

account.get("/sessions", requireSession, async (c) => {
  const { results } = await c.env.DB.prepare("SELECT id, kind, user_agent, created_at, last_seen_at, expires_at FROM sessions WHERE user_id = ? AND expires_at > ? ORDER BY created_at DESC")
    .bind(c.get("user").id, c.get("now"))
    .all<{ id: string; kind: string; user_agent: string | null; created_at: number; last_seen_at: number; expires_at: number }>();
  const current = c.get("session").id;
  return c.json({
    sessions: results.map((s) => ({
      id: s.id,
      kind: s.kind,
      userAgent: s.user_agent,
      createdAt: iso(s.created_at),
      lastSeenAt: iso(s.last_seen_at),
      expiresAt: iso(s.expires_at),
      current: s.id === current,
    })),
  });
});

account.delete("/sessions/:id", requireSession, async (c) => {
  const r = await c.env.DB.prepare("DELETE FROM sessions WHERE id = ? AND user_id = ?").bind(c.req.param("id"), c.get("user").id).run();
  if (!r.meta.changes) throw new ApiError(404, "not_found", "no such session among yours");
  return c.body(null, 204);
});

account.get("/me", requireSession, (c) => c.json({ user: me(c.get("user")) }));

account.patch("/me", requireSession, async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["displayName", "username", "bio", "avatarUrl"]);
  const changes: [string, string | null][] = [];
  const add = (col: string, v: string | null | undefined) => v !== undefined && changes.push([col, v]);
  add("display_name", optionalText(body, "displayName", 64));
  add("username", username(body));
  add("bio", optionalText(body, "bio", 500));
  add("avatar_url", avatarUrl(body));
  const user = c.get("user");
  if (changes.length > 0) {
    const sets = changes.map(([col]) => `${col} = ?`).join(", ");
    try {
      await c.env.DB.prepare(`UPDATE users SET ${sets}, updated_at = ? WHERE id = ?`).bind(...changes.map(([, v]) => v), c.get("now"), user.id).run();
    } catch (e) {
      if (/UNIQUE/i.test(String(e))) throw new ApiError(409, "username_taken", "username: already taken", "username");
      throw e;
    }
  }
  const fresh = { ...user, ...Object.fromEntries(changes) };
  return c.json({ user: me(fresh) });
});

account.post("/me/password", requireSession, async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["currentPassword", "newPassword"]);
  const current = str(body, "currentPassword", { min: 1, max: 1024 });
  const next = passwordField(body, "newPassword");
  const user = c.get("user");
  const now = c.get("now");
  await rateLimit(c.env, now, "login", { ip: clientIp(c.req.raw), email: user.email });
  if (!(await verifyPassword(current, user.password_hash)).ok) throw new ApiError(403, "wrong_password", "currentPassword: does not match", "currentPassword");
  const hash = await hashPassword(next, iterations(c.env));
  const [, revoked] = await c.env.DB.batch([
    c.env.DB.prepare("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?").bind(hash, now, user.id),
    c.env.DB.prepare("DELETE FROM sessions WHERE user_id = ? AND id != ?").bind(user.id, c.get("session").id),
  ]);
  return c.json({ changed: true, revokedSessions: revoked!.meta.changes ?? 0 });
});

account.delete("/me", requireSession, async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["password"]);
  const pw = str(body, "password", { min: 1, max: 1024 });
  const user = c.get("user");
  await rateLimit(c.env, c.get("now"), "login", { ip: clientIp(c.req.raw), email: user.email });
  if (!(await verifyPassword(pw, user.password_hash)).ok) throw new ApiError(403, "wrong_password", "password: does not match", "password");
  await c.env.DB.batch([
    c.env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(user.id),
    c.env.DB.prepare("DELETE FROM email_tokens WHERE user_id = ?").bind(user.id),
    c.env.DB.prepare("DELETE FROM users WHERE id = ?").bind(user.id),
  ]);
  if (c.get("session").kind === "cookie") c.header("set-cookie", clearCookie());
  return c.body(null, 204);
});
