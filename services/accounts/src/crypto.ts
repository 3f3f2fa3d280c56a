// Password hashing (PBKDF2-HMAC-SHA256), random tokens and peppered token hashes.
import { work } from "./work.ts";

export const PBKDF2_ITERATIONS = 100_000; // the most workerd's WebCrypto accepts
const SALT_BYTES = 16;
const HASH_BYTES = 32;

const enc = new TextEncoder();

export function randomBytes(n: number): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(n));
}

export function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function unb64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export const randomId = () => hex(randomBytes(16));
/** A bearer secret: 32 random bytes, base64url. */
export const newToken = () => b64url(randomBytes(32));

export async function sha256Hex(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(text))));
}

/** What the database stores for a session/email token: sha256("<pepper>:<token>"). */
export const tokenHash = (pepper: string, token: string) => sha256Hex(`${pepper}:${token}`);

async function pbkdf2(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  work.pbkdf2++;
  const key = await crypto.subtle.importKey("raw", enc.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BYTES * 8);
  return new Uint8Array(bits);
}

/** "pbkdf2-sha256$<iterations>$<salt>$<hash>": algorithm and cost travel with the hash so they can be raised later. */
export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return `pbkdf2-sha256$${iterations}$${b64(salt)}$${b64(await pbkdf2(password, salt, iterations))}`;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

export interface Verified {
  ok: boolean;
  /** The stored hash uses an older algorithm or fewer iterations than `target`. */
  needsRehash: boolean;
}

export async function verifyPassword(password: string, stored: string, target = PBKDF2_ITERATIONS): Promise<Verified> {
  const parts = stored.split("$");
  if (parts.length !== 4 || parts[0] !== "pbkdf2-sha256") return { ok: false, needsRehash: false };
  const iterations = Number(parts[1]);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS) return { ok: false, needsRehash: false };
  const got = await pbkdf2(password, unb64(parts[2]!), iterations);
  const ok = equalBytes(got, unb64(parts[3]!));
  return { ok, needsRehash: ok && iterations !== target };
}

const dummies = new Map<number, Promise<string>>();
/** A real hash of nothing in particular, verified against when the email is unknown so both paths cost the same. */
export function dummyHash(iterations: number): Promise<string> {
  let d = dummies.get(iterations);
  if (!d) dummies.set(iterations, (d = hashPassword(b64url(randomBytes(16)), iterations)));
  return d;
}
