import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export type AuthMode = "none" | "token" | "password";

export type AuthConfig =
  | { mode: "none" }
  | { mode: "token"; token: string }
  | { mode: "password"; passwordHash: string };

export const COOKIE_NAME = "reasonix_session";
/** Lifetime of a session cookie (token and password mode). */
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Compare two secrets in constant time. Hashing first gives both sides the
 * same length, so neither the content nor the length leaks through timing.
 */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/**
 * Signs and checks session cookies: `v1.<expiresMs>.<nonce>.<hmac>`. The key is
 * derived from the credential, so a restarted server with the same token (or
 * password hash) still honours cookies it issued, and changing the credential
 * invalidates every outstanding cookie.
 */
export class CookieSigner {
  private readonly key: Buffer;
  constructor(secretMaterial: string) {
    this.key = createHash("sha256").update(`reasonix-serve-cookie\0${secretMaterial}`).digest();
  }

  issue(now = Date.now(), ttlMs = SESSION_TTL_MS): { value: string; maxAgeSeconds: number } {
    const body = `v1.${now + ttlMs}.${randomBytes(12).toString("base64url")}`;
    return { value: `${body}.${this.mac(body)}`, maxAgeSeconds: Math.floor(ttlMs / 1000) };
  }

  verify(value: string | undefined, now = Date.now()): boolean {
    if (!value) return false;
    const i = value.lastIndexOf(".");
    if (i < 0) return false;
    const body = value.slice(0, i);
    const parts = body.split(".");
    if (parts.length !== 3 || parts[0] !== "v1") return false;
    if (!safeEqual(value.slice(i + 1), this.mac(body))) return false;
    const exp = Number(parts[1]);
    return Number.isFinite(exp) && exp > now;
  }

  private mac(body: string): string {
    return createHmac("sha256", this.key).update(body).digest("base64url");
  }
}

export function parseCookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    const raw = part.slice(i + 1).trim();
    try { out.set(name, decodeURIComponent(raw)); } catch { out.set(name, raw); }
  }
  return out;
}

export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${COOKIE_NAME}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}

export function clearedCookie(secure: boolean): string {
  return `${COOKIE_NAME}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? "; Secure" : ""}`;
}

/**
 * Sliding-window attempt limiter keyed by client (5 per minute for /login),
 * with an optional ceiling on all clients together: an attacker who can speak
 * from many addresses gets that many attempts in total, not limit × addresses.
 */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();
  private all: number[] = [];
  constructor(private readonly limit: number, private readonly windowMs: number, private readonly globalLimit = Number.POSITIVE_INFINITY) {}

  /** Record an attempt; returns 0 when allowed, else the seconds to wait. Refused attempts are not counted. */
  take(client: string, now = Date.now()): number {
    const recent = (this.hits.get(client) ?? []).filter((t) => now - t < this.windowMs);
    this.all = this.all.filter((t) => now - t < this.windowMs);
    const full = recent.length >= this.limit ? recent : this.all.length >= this.globalLimit ? this.all : undefined;
    if (full) {
      if (recent.length) this.hits.set(client, recent);
      return Math.max(1, Math.ceil((full[0]! + this.windowMs - now) / 1000));
    }
    recent.push(now);
    this.all.push(now);
    this.hits.set(client, recent);
    if (this.hits.size > 10_000) this.prune(now);
    return 0;
  }

  private prune(now: number): void {
    for (const [k, v] of this.hits) if (v.every((t) => now - t >= this.windowMs)) this.hits.delete(k);
  }
}

/** bcrypt hash for `[serve].password_hash`. */
export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "bcrypt", cost: 12 });
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash).catch(() => false);
}
