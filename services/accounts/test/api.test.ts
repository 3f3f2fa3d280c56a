// Every route's success and failure paths, driven over HTTP against the
// Worker in real workerd with a real local D1 (dev mode: outbox mailer and
// injectable clock).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { call, cleanupTemp, freshIp, loginToken, mailTo, startWorker, tokenIn, uniqueEmail, unavailable, verifiedUser, type Worker } from "./helpers.ts";
import { pollFor } from "../../../core/testing/fresh-wait.ts";

setDefaultTimeout(120_000);
const skip = unavailable();
if (skip) console.warn(`SKIPPED accounts API tests: ${skip}`);

const ORIGIN = "https://app.test";
const HOUR = 3_600_000;

describe.skipIf(!!skip)("accounts API (workerd + local D1)", () => {
  let w: Worker;
  let U: string;
  const setClock = (offsetMs: number) => call(U, "PUT", "/v1/dev/clock", { json: { offsetMs } });

  beforeAll(async () => {
    w = await startWorker({ origins: ORIGIN });
    U = w.url;
  });
  afterAll(async () => {
    await w?.stop();
    cleanupTemp();
  });

  test("health reports the pepper and the dev mailer", async () => {
    const r = await call(U, "GET", "/v1/health");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, pepper: true, mail: "outbox", dev: true });
  });

  test("sign-up answers 202, mails a link; verification is single-use", async () => {
    const email = uniqueEmail("signup");
    const r = await call(U, "POST", "/v1/signup", { json: { email: email.toUpperCase(), password: "long enough pw" }, ip: freshIp() });
    expect(r.status).toBe(202);
    expect(r.body.status).toBe("accepted");
    const [mail] = await mailTo(U, email, /Confirm/);
    const token = tokenIn(mail!.body);
    expect(token.length).toBeGreaterThan(40);
    const before = await call(U, "POST", "/v1/login", { json: { email, password: "long enough pw", mode: "token" }, ip: freshIp() });
    expect(before.status).toBe(403);
    expect(before.body.error).toBe("email_not_verified");
    const v1 = await call(U, "POST", "/v1/verify-email", { json: { token }, ip: freshIp() });
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ verified: true });
    const v2 = await call(U, "POST", "/v1/verify-email", { json: { token }, ip: freshIp() });
    expect(v2.status).toBe(400);
    expect(v2.body).toMatchObject({ error: "invalid_token", field: "token" });
    const bogus = await call(U, "POST", "/v1/verify-email", { json: { token: "not-a-real-token" }, ip: freshIp() });
    expect(bogus.status).toBe(400);
  });

  test("a verification link expires after 24 hours (injected clock)", async () => {
    const email = uniqueEmail("expire");
    await call(U, "POST", "/v1/signup", { json: { email, password: "long enough pw" }, ip: freshIp() });
    const [mail] = await mailTo(U, email, /Confirm/);
    try {
      await setClock(24 * HOUR + 60_000);
      const r = await call(U, "POST", "/v1/verify-email", { json: { token: tokenIn(mail!.body) }, ip: freshIp() });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("invalid_token");
    } finally {
      await setClock(0);
    }
  });

  test("sign-up with a taken address: same answer, and the owner gets a notice instead of a link", async () => {
    const { email } = await verifiedUser(U, "taken");
    const r = await call(U, "POST", "/v1/signup", { json: { email, password: "another password" }, ip: freshIp() });
    expect(r.status).toBe(202);
    expect(r.body.status).toBe("accepted");
    const [notice] = await mailTo(U, email, /tried to sign up/);
    expect(notice!.body).not.toMatch(/#token=/);
  });

  test("login: cookie mode sets an HttpOnly Secure SameSite=Lax cookie; token mode returns the token once", async () => {
    const { email, password } = await verifiedUser(U, "login");
    const c = await call(U, "POST", "/v1/login", { json: { email, password }, ip: freshIp() });
    expect(c.status).toBe(200);
    expect(c.body.token).toBeUndefined();
    expect(c.body.user.email).toBe(email);
    const cookie = c.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^rx_session=[A-Za-z0-9_-]{43};/);
    for (const attr of ["HttpOnly", "Secure", "SameSite=Lax", "Path=/"]) expect(cookie).toContain(attr);
    const t = await call(U, "POST", "/v1/login", { json: { email, password, mode: "token" }, ip: freshIp() });
    expect(t.status).toBe(200);
    expect(t.headers.get("set-cookie")).toBeNull();
    expect(t.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(t.body.session.id).toMatch(/^[0-9a-f]{32}$/);
    const me = await call(U, "GET", "/v1/me", { token: t.body.token });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email, emailVerified: true, username: null });
    const viaCookie = await call(U, "GET", "/v1/me", { cookie: cookie.split(";")[0] });
    expect(viaCookie.status).toBe(200);
  });

  test("login failures: wrong password and unknown email give the same 401", async () => {
    const { email } = await verifiedUser(U, "fail");
    const wrong = await call(U, "POST", "/v1/login", { json: { email, password: "not the password" }, ip: freshIp() });
    const unknown = await call(U, "POST", "/v1/login", { json: { email: uniqueEmail("nobody"), password: "not the password" }, ip: freshIp() });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.text).toBe(wrong.text);
    expect(wrong.body.error).toBe("invalid_credentials");
    const badMode = await call(U, "POST", "/v1/login", { json: { email, password: "x", mode: "jwt" }, ip: freshIp() });
    expect(badMode.status).toBe(400);
    expect(badMode.body.field).toBe("mode");
  });

  test("authentication failures: no credentials, malformed Bearer, unknown token", async () => {
    const none = await call(U, "GET", "/v1/me");
    expect(none.status).toBe(401);
    expect(none.body.error).toBe("unauthenticated");
    const malformed = await call(U, "GET", "/v1/me", { headers: { authorization: "Basic Zm9vOmJhcg==" } });
    expect(malformed.status).toBe(401);
    const unknown = await call(U, "GET", "/v1/me", { token: "A".repeat(43) });
    expect(unknown.status).toBe(401);
  });

  test("PATCH /me: profile fields, unique username, validated avatar URL, public profile", async () => {
    const a = await verifiedUser(U, "prof");
    const b = await verifiedUser(U, "prof");
    const ta = await loginToken(U, a.email, a.password);
    const tb = await loginToken(U, b.email, b.password);
    const name = `user_${Date.now().toString(36)}`;
    const ok = await call(U, "PATCH", "/v1/me", { token: ta, json: { displayName: " Ada L ", username: name.toUpperCase(), bio: "writes engines", avatarUrl: "https://img.example.test/a.png" } });
    expect(ok.status).toBe(200);
    expect(ok.body.user).toMatchObject({ displayName: "Ada L", username: name, bio: "writes engines", avatarUrl: "https://img.example.test/a.png" });
    const taken = await call(U, "PATCH", "/v1/me", { token: tb, json: { username: name } });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ error: "username_taken", field: "username" });
    for (const [avatarUrl, why] of [["http://img.example.test/a.png", /https/], ["javascript:alert(1)", /https/], ["not a url", /not a URL/], ["https://u:p@img.example.test/", /credentials/]] as const) {
      const r = await call(U, "PATCH", "/v1/me", { token: tb, json: { avatarUrl } });
      expect(r.status).toBe(400);
      expect(r.body.field).toBe("avatarUrl");
      expect(r.body.message).toMatch(why);
    }
    const badName = await call(U, "PATCH", "/v1/me", { token: tb, json: { username: "a b" } });
    expect(badName.body.field).toBe("username");
    const long = await call(U, "PATCH", "/v1/me", { token: tb, json: { bio: "x".repeat(501) } });
    expect(long.body).toMatchObject({ error: "invalid_field", field: "bio" });
    const typo = await call(U, "PATCH", "/v1/me", { token: tb, json: { displayname: "x" } });
    expect(typo.status).toBe(400);
    expect(typo.body.field).toBe("displayname");
    const pub = await call(U, "GET", `/v1/users/${name}`);
    expect(pub.status).toBe(200);
    expect(pub.body.profile).toMatchObject({ username: name, displayName: "Ada L", bio: "writes engines" });
    expect(pub.text).not.toContain(a.email);
    expect(pub.body.profile.id).toBeUndefined();
    expect((await call(U, "GET", "/v1/users/no-such-user-here")).status).toBe(404);
    const cleared = await call(U, "PATCH", "/v1/me", { token: ta, json: { bio: null } });
    expect(cleared.body.user.bio).toBeNull();
  });

  test("sessions: list marks the current one; revoke another; others' sessions are not found", async () => {
    const { email, password } = await verifiedUser(U, "sess");
    const t1 = await loginToken(U, email, password);
    const t2 = await loginToken(U, email, password);
    const list = await call(U, "GET", "/v1/sessions", { token: t1 });
    expect(list.status).toBe(200);
    expect(list.body.sessions).toHaveLength(2);
    const current = list.body.sessions.find((s: any) => s.current);
    const other = list.body.sessions.find((s: any) => !s.current);
    expect(current.kind).toBe("token");
    expect(list.text).not.toContain(t1);
    const stranger = await verifiedUser(U, "stranger");
    const ts = await loginToken(U, stranger.email, stranger.password);
    expect((await call(U, "DELETE", `/v1/sessions/${other.id}`, { token: ts })).status).toBe(404);
    expect((await call(U, "DELETE", `/v1/sessions/${other.id}`, { token: t1 })).status).toBe(204);
    expect((await call(U, "GET", "/v1/me", { token: t2 })).status).toBe(401);
    expect((await call(U, "GET", "/v1/me", { token: t1 })).status).toBe(200);
    expect((await call(U, "DELETE", `/v1/sessions/${other.id}`, { token: t1 })).status).toBe(404);
  });

  test("logout ends this session; logout-all ends every session", async () => {
    const { email, password } = await verifiedUser(U, "logout");
    const t1 = await loginToken(U, email, password);
    const t2 = await loginToken(U, email, password);
    const t3 = await loginToken(U, email, password);
    expect((await call(U, "POST", "/v1/logout", { token: t1 })).status).toBe(204);
    expect((await call(U, "GET", "/v1/me", { token: t1 })).status).toBe(401);
    expect((await call(U, "GET", "/v1/me", { token: t2 })).status).toBe(200);
    expect((await call(U, "POST", "/v1/logout-all", { token: t2 })).status).toBe(204);
    expect((await call(U, "GET", "/v1/me", { token: t2 })).status).toBe(401);
    expect((await call(U, "GET", "/v1/me", { token: t3 })).status).toBe(401);
    const c = await call(U, "POST", "/v1/login", { json: { email, password }, ip: freshIp() });
    const cookie = (c.headers.get("set-cookie") ?? "").split(";")[0]!;
    const out = await call(U, "POST", "/v1/logout", { cookie, origin: ORIGIN });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
  });

  test("sessions expire after 30 days unused and slide forward when used", async () => {
    const { email, password } = await verifiedUser(U, "slide");
    const used = await loginToken(U, email, password);
    const idle = await loginToken(U, email, password);
    const c = await call(U, "POST", "/v1/login", { json: { email, password }, ip: freshIp() });
    const cookie = (c.headers.get("set-cookie") ?? "").split(";")[0]!;
    try {
      await setClock(20 * 24 * HOUR);
      expect((await call(U, "GET", "/v1/me", { token: used })).status).toBe(200); // renewed to day 50
      // A renewed cookie session gets its cookie again with a fresh Max-Age.
      const renewed = await call(U, "GET", "/v1/me", { cookie });
      expect(renewed.status).toBe(200);
      expect(renewed.headers.get("set-cookie")).toStartWith(`${cookie};`);
      expect(renewed.headers.get("set-cookie")).toContain(`Max-Age=${30 * 24 * 3600}`);
      await setClock(40 * 24 * HOUR);
      expect((await call(U, "GET", "/v1/me", { token: used })).status).toBe(200);
      expect((await call(U, "GET", "/v1/me", { token: idle })).status).toBe(401);
    } finally {
      await setClock(0);
    }
  });

  test("password change: wrong current password refused; other sessions revoked, this one kept", async () => {
    const { email, password } = await verifiedUser(U, "chpw");
    const keep = await loginToken(U, email, password);
    const other = await loginToken(U, email, password);
    const wrong = await call(U, "POST", "/v1/me/password", { token: keep, json: { currentPassword: "nope nope", newPassword: "a brand new one" } });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ error: "wrong_password", field: "currentPassword" });
    const short = await call(U, "POST", "/v1/me/password", { token: keep, json: { currentPassword: password, newPassword: "short" } });
    expect(short.body).toMatchObject({ error: "invalid_field", field: "newPassword" });
    const ok = await call(U, "POST", "/v1/me/password", { token: keep, json: { currentPassword: password, newPassword: "a brand new one" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ changed: true, revokedSessions: 1 });
    expect((await call(U, "GET", "/v1/me", { token: other })).status).toBe(401);
    expect((await call(U, "GET", "/v1/me", { token: keep })).status).toBe(200);
    expect((await call(U, "POST", "/v1/login", { json: { email, password }, ip: freshIp() })).status).toBe(401);
    expect((await call(U, "POST", "/v1/login", { json: { email, password: "a brand new one" }, ip: freshIp() })).status).toBe(200);
  });

  test("forgot/reset: same answer for unknown addresses; reset token is single-use and revokes every session", async () => {
    const { email, password } = await verifiedUser(U, "reset");
    const s1 = await loginToken(U, email, password);
    const known = await call(U, "POST", "/v1/forgot-password", { json: { email }, ip: freshIp() });
    const nobody = uniqueEmail("ghost");
    const unknown = await call(U, "POST", "/v1/forgot-password", { json: { email: nobody }, ip: freshIp() });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.text).toBe(known.text);
    const [mail] = await mailTo(U, email, /Reset/);
    await Bun.sleep(300);
    expect((await call(U, "GET", `/v1/dev/outbox?to=${encodeURIComponent(nobody)}`)).body.messages).toHaveLength(0);
    const token = tokenIn(mail!.body);
    const weak = await call(U, "POST", "/v1/reset-password", { json: { token, newPassword: "1234" }, ip: freshIp() });
    expect(weak.body.field).toBe("newPassword");
    const ok = await call(U, "POST", "/v1/reset-password", { json: { token, newPassword: "reset to this" }, ip: freshIp() });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ reset: true, revokedSessions: 1 });
    expect((await call(U, "GET", "/v1/me", { token: s1 })).status).toBe(401);
    const again = await call(U, "POST", "/v1/reset-password", { json: { token, newPassword: "again and again" }, ip: freshIp() });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_token");
    expect((await call(U, "POST", "/v1/login", { json: { email, password: "reset to this" }, ip: freshIp() })).status).toBe(200);
  });

  test("a reset link expires after an hour (injected clock)", async () => {
    const { email } = await verifiedUser(U, "resetexp");
    await call(U, "POST", "/v1/forgot-password", { json: { email }, ip: freshIp() });
    const [mail] = await mailTo(U, email, /Reset/);
    try {
      await setClock(HOUR + 1000);
      const r = await call(U, "POST", "/v1/reset-password", { json: { token: tokenIn(mail!.body), newPassword: "too late now" }, ip: freshIp() });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("invalid_token");
    } finally {
      await setClock(0);
    }
  });

  test("reset verifies an unverified address (following the link proves control)", async () => {
    const email = uniqueEmail("unverified");
    await call(U, "POST", "/v1/signup", { json: { email, password: "first password" }, ip: freshIp() });
    await mailTo(U, email, /Confirm/);
    await call(U, "POST", "/v1/forgot-password", { json: { email }, ip: freshIp() });
    const [mail] = await mailTo(U, email, /Reset/);
    expect((await call(U, "POST", "/v1/reset-password", { json: { token: tokenIn(mail!.body), newPassword: "second password" }, ip: freshIp() })).status).toBe(200);
    expect((await call(U, "POST", "/v1/login", { json: { email, password: "second password" }, ip: freshIp() })).status).toBe(200);
  });

  test("delete account: needs the password; afterwards sessions, login and profile are gone", async () => {
    const { email, password } = await verifiedUser(U, "delete");
    const t = await loginToken(U, email, password);
    const name = `del_${Date.now().toString(36)}`;
    await call(U, "PATCH", "/v1/me", { token: t, json: { username: name } });
    const wrong = await call(U, "DELETE", "/v1/me", { token: t, json: { password: "wrong one!" } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.field).toBe("password");
    const missing = await call(U, "DELETE", "/v1/me", { token: t });
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe("body");
    expect((await call(U, "DELETE", "/v1/me", { token: t, json: { password } })).status).toBe(204);
    expect((await call(U, "GET", "/v1/me", { token: t })).status).toBe(401);
    expect((await call(U, "POST", "/v1/login", { json: { email, password }, ip: freshIp() })).status).toBe(401);
    expect((await call(U, "GET", `/v1/users/${name}`)).status).toBe(404);
  });

  test("bad input: malformed JSON, oversized body, wrong types and lengths get 400 naming the field", async () => {
    const ip = freshIp();
    const cases: [Parameters<typeof call>[3], string, string][] = [
      [{ raw: "{not json" }, "invalid_json", "body"],
      [{ raw: JSON.stringify({ email: "a@b.test", password: "x".repeat(17 * 1024) }) }, "body_too_large", "body"],
      [{ raw: "[1,2]" }, "invalid_body", "body"],
      [{ raw: "email=a@b.test", contentType: "application/x-www-form-urlencoded" }, "invalid_body", "body"],
      [{ json: { email: 42, password: "long enough pw" } }, "invalid_field", "email"],
      [{ json: { email: "not-an-email", password: "long enough pw" } }, "invalid_field", "email"],
      [{ json: { email: `${"a".repeat(250)}@b.test`, password: "long enough pw" } }, "invalid_field", "email"],
      [{ json: { email: "a@b.test" } }, "invalid_field", "password"],
      [{ json: { email: "a@b.test", password: "seven77" } }, "invalid_field", "password"],
      [{ json: { email: "a@b.test", password: "p".repeat(1025) } }, "invalid_field", "password"],
      [{ json: { email: "a@b.test", password: ["long enough pw"] } }, "invalid_field", "password"],
      [{ json: { email: "a@b.test", password: "long enough pw", admin: true } }, "invalid_field", "admin"],
    ];
    for (const [opts, error, field] of cases) {
      const r = await call(U, "POST", "/v1/signup", { ...opts, ip });
      expect({ status: r.status, error: r.body?.error, field: r.body?.field }).toEqual({ status: 400, error, field });
      expect(r.body.message).toContain(field);
    }
    const ok = await call(U, "POST", "/v1/signup", { json: { email: uniqueEmail("edge"), password: "p".repeat(1024) }, ip: freshIp() });
    expect(ok.status).toBe(202);
    const wrongType = await call(U, "POST", "/v1/verify-email", { json: { token: 12 }, ip: freshIp() });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toMatchObject({ error: "invalid_field", field: "token" });
  });

  test("unknown routes and methods are JSON 404s", async () => {
    const r = await call(U, "GET", "/v1/nope");
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("not_found");
    expect((await call(U, "GET", "/")).body.error).toBe("not_found");
  });

  test("cookie sessions: state changes need an allowed Origin; Bearer does not; foreign pages cannot log in", async () => {
    const { email, password } = await verifiedUser(U, "origin");
    const c = await call(U, "POST", "/v1/login", { json: { email, password }, ip: freshIp(), origin: ORIGIN });
    expect(c.status).toBe(200);
    const cookie = (c.headers.get("set-cookie") ?? "").split(";")[0]!;
    const noOrigin = await call(U, "PATCH", "/v1/me", { cookie, json: { bio: "csrf" } });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body.error).toBe("origin_not_allowed");
    const evil = await call(U, "PATCH", "/v1/me", { cookie, origin: "https://evil.test", json: { bio: "csrf" } });
    expect(evil.status).toBe(403);
    const good = await call(U, "PATCH", "/v1/me", { cookie, origin: ORIGIN, json: { bio: "fine" } });
    expect(good.status).toBe(200);
    expect((await call(U, "GET", "/v1/me", { cookie, origin: "https://evil.test" })).status).toBe(200); // reads are not state changes
    const foreignLogin = await call(U, "POST", "/v1/login", { json: { email, password }, ip: freshIp(), origin: "https://evil.test" });
    expect(foreignLogin.status).toBe(403);
    const t = await loginToken(U, email, password);
    expect((await call(U, "PATCH", "/v1/me", { token: t, origin: "https://evil.test", json: { bio: "bearer" } })).status).toBe(200);
    const pre = await fetch(`${U}/v1/me`, { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "PATCH" } });
    expect(pre.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(pre.headers.get("access-control-allow-credentials")).toBe("true");
    const preEvil = await fetch(`${U}/v1/me`, { method: "OPTIONS", headers: { origin: "https://evil.test", "access-control-request-method": "PATCH" } });
    expect(preEvil.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("rate limits: login per email and per IP, sign-up, forgot-password and verify answer 429 with Retry-After", async () => {
    const { email } = await verifiedUser(U, "limit");
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await call(U, "POST", "/v1/login", { json: { email, password: "wrong password" }, ip: freshIp() })).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    const last = await call(U, "POST", "/v1/login", { json: { email, password: "wrong password" }, ip: freshIp() });
    expect(last.status).toBe(429);
    expect(last.body.error).toBe("rate_limited");
    const retry = Number(last.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);

    const ip = freshIp();
    const byIp: number[] = [];
    for (let i = 0; i < 31; i++) byIp.push((await call(U, "POST", "/v1/login", { json: { email: uniqueEmail("ipl"), password: "whatever1" }, ip })).status);
    expect(byIp.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(byIp[30]).toBe(429);

    const sip = freshIp();
    const signups: number[] = [];
    for (let i = 0; i < 11; i++) signups.push((await call(U, "POST", "/v1/signup", { json: { email: uniqueEmail("spam"), password: "long enough pw" }, ip: sip })).status);
    expect(signups.slice(0, 10).every((s) => s === 202)).toBe(true);
    expect(signups[10]).toBe(429);

    const target = uniqueEmail("forgotlimit");
    const forgot: number[] = [];
    for (let i = 0; i < 4; i++) forgot.push((await call(U, "POST", "/v1/forgot-password", { json: { email: target }, ip: freshIp() })).status);
    expect(forgot).toEqual([202, 202, 202, 429]);

    const vip = freshIp();
    const verify: number[] = [];
    for (let i = 0; i < 31; i++) verify.push((await call(U, "POST", "/v1/verify-email", { json: { token: `guess-${i}` }, ip: vip })).status);
    expect(verify.slice(0, 30).every((s) => s === 400)).toBe(true);
    expect(verify[30]).toBe(429);
    const r = await call(U, "POST", "/v1/verify-email", { json: { token: "guess" }, ip: vip });
    expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  test("a rate-limit window ends: the same IP may try again after Retry-After (injected clock)", async () => {
    const ip = freshIp();
    for (let i = 0; i < 31; i++) await call(U, "POST", "/v1/verify-email", { json: { token: `g${i}` }, ip });
    const blocked = await call(U, "POST", "/v1/verify-email", { json: { token: "g" }, ip });
    expect(blocked.status).toBe(429);
    try {
      await setClock((Number(blocked.headers.get("retry-after")) + 1) * 1000);
      expect((await call(U, "POST", "/v1/verify-email", { json: { token: "g" }, ip })).status).toBe(400);
    } finally {
      await setClock(0);
    }
  });

  // Last: it moves the clock a month on and purges what that expires.
  test("the daily cron purge drops expired sessions and sign-ups never confirmed within a week", async () => {
    const ghost = uniqueEmail("neverconfirmed");
    await call(U, "POST", "/v1/signup", { json: { email: ghost, password: "first password" }, ip: freshIp() });
    await mailTo(U, ghost, /Confirm/);
    const { email, password } = await verifiedUser(U, "purge");
    const t = await loginToken(U, email, password);
    try {
      await setClock(31 * 24 * HOUR);
      const trigger = await fetch(`${U}/cdn-cgi/handler/scheduled`);
      expect(trigger.status).toBe(200);
      const line = await pollFor("the purge report", () => /purge: (\{.*\})/.exec(w.stdout())?.[1] ?? "", (l) => l !== "");
      const n = JSON.parse(line);
      expect(n.sessions).toBeGreaterThanOrEqual(1);
      expect(n.unverifiedUsers).toBeGreaterThanOrEqual(1);
      expect((await call(U, "GET", "/v1/me", { token: t })).status).toBe(401);
      expect((await call(U, "POST", "/v1/login", { json: { email, password, mode: "token" }, ip: freshIp() })).status).toBe(200); // confirmed accounts stay
      // The unconfirmed address is free again: a new sign-up gets a new link, not the "already registered" notice.
      // (The week-old dev outbox was purged too, so the first link is gone from it.)
      expect((await call(U, "GET", `/v1/dev/outbox?to=${encodeURIComponent(ghost)}`)).body.messages).toHaveLength(0);
      expect((await call(U, "POST", "/v1/signup", { json: { email: ghost, password: "second password" }, ip: freshIp() })).status).toBe(202);
      expect(await mailTo(U, ghost, /Confirm/)).toHaveLength(1);
      await Bun.sleep(200);
      expect((await call(U, "GET", `/v1/dev/outbox?to=${encodeURIComponent(ghost)}`)).body.messages.some((m: any) => /tried to sign up/.test(m.subject))).toBe(false);
    } finally {
      await setClock(0);
    }
  });
});
