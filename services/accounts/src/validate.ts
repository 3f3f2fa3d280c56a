// Request bodies: JSON only, size-capped, every field checked by name.
import { ApiError, invalidField } from "./errors.ts";

export const MAX_BODY_BYTES = 16 * 1024;

/** Read a JSON object body; 400 naming "body" when it is too large, not JSON, or not an object. */
export async function readJson(req: Request): Promise<Record<string, unknown>> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) throw new ApiError(400, "invalid_body", "body: Content-Type must be application/json", "body");
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    bytes.set(c, off);
    off += c.byteLength;
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError(400, "invalid_json", "body: not valid JSON", "body");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ApiError(400, "invalid_body", "body: must be a JSON object", "body");
  return value as Record<string, unknown>;
}

const tooLarge = () => new ApiError(400, "body_too_large", `body: larger than ${MAX_BODY_BYTES} bytes`, "body");

export function str(body: Record<string, unknown>, field: string, opts: { min?: number; max: number; optional?: false }): string;
export function str(body: Record<string, unknown>, field: string, opts: { min?: number; max: number; optional: true }): string | undefined;
export function str(body: Record<string, unknown>, field: string, opts: { min?: number; max: number; optional?: boolean }): string | undefined {
  const v = body[field];
  if (v === undefined && opts.optional) return undefined;
  if (v === undefined) throw invalidField(field, "is required");
  if (typeof v !== "string") throw invalidField(field, "must be a string");
  const len = [...v].length;
  if (len < (opts.min ?? 0)) throw invalidField(field, opts.min === 1 ? "must not be empty" : `must be at least ${opts.min} characters`);
  if (len > opts.max) throw invalidField(field, `must be at most ${opts.max} characters`);
  return v;
}

const EMAIL = /^[^\s@"<>()\[\]\\,;:]+@[^\s@"<>()\[\]\\,;:]+\.[^\s@"<>()\[\]\\,;:.]+$/;

export function email(body: Record<string, unknown>, field = "email"): string {
  const v = str(body, field, { min: 3, max: 254 }).trim().toLowerCase();
  if (!EMAIL.test(v)) throw invalidField(field, "is not an email address");
  return v;
}

export function password(body: Record<string, unknown>, field = "password"): string {
  return str(body, field, { min: 8, max: 1024 });
}

/** A nullable profile string: null clears it, a string is trimmed and capped. */
export function optionalText(body: Record<string, unknown>, field: string, max: number): string | null | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== "string") throw invalidField(field, "must be a string or null");
  const t = v.trim();
  if ([...t].length > max) throw invalidField(field, `must be at most ${max} characters`);
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(t)) throw invalidField(field, "must not contain control characters");
  return t === "" ? null : t;
}

export const USERNAME = /^[a-z0-9](?:[a-z0-9_-]{1,30})[a-z0-9]$/;

export function username(body: Record<string, unknown>, field = "username"): string | null | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== "string") throw invalidField(field, "must be a string or null");
  const u = v.trim().toLowerCase();
  if (u === "") return null;
  if (!USERNAME.test(u)) throw invalidField(field, "must be 3-32 characters of a-z, 0-9, '_' or '-', starting and ending with a letter or digit");
  return u;
}

export function avatarUrl(body: Record<string, unknown>, field = "avatarUrl"): string | null | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (v === null || v === "") return null;
  if (typeof v !== "string") throw invalidField(field, "must be a string or null");
  if (v.length > 2048) throw invalidField(field, "must be at most 2048 characters");
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw invalidField(field, "is not a URL");
  }
  if (u.protocol !== "https:") throw invalidField(field, "must be an https:// URL");
  if (u.username || u.password) throw invalidField(field, "must not contain credentials");
  return u.toString();
}

/** Refuse fields the route does not know, so a typo is an error rather than a silent no-op. */
export function onlyFields(body: Record<string, unknown>, allowed: string[]): void {
  for (const k of Object.keys(body)) if (!allowed.includes(k)) throw invalidField(k, "is not a known field");
}
