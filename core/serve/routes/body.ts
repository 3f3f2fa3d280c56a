// Request bodies, checked in one place: every route reads its JSON through
// `readJson` and its fields through these checkers, so a malformed body is a
// 400 with a code and a sentence naming the field, never a 500.
import { errorMessage } from "../../errors.ts";
import { checkImageTotal, imageFromBase64, MAX_IMAGES, MAX_MESSAGE_IMAGE_BYTES, type ImageInput } from "../../providers/images.ts";
import { ApiError } from "../api-error.ts";

export type Body = Record<string, unknown>;

/** What an ordinary JSON body may weigh. */
export const MAX_JSON_BODY = 4 * 1024 * 1024;
/** A prompt with pasted pictures: their base64 (a third more than the bytes) plus the text. */
export const MAX_PROMPT_BODY = Math.ceil((MAX_MESSAGE_IMAGE_BYTES * 4) / 3) + MAX_JSON_BODY;
export const PROMPT_BODY_WHY = `the pictures of one message may add up to ${MAX_MESSAGE_IMAGE_BYTES / 1048576} MiB`;

const tooLarge = (limit: number, why?: string) => new ApiError(413, "body_too_large", `request body is larger than ${(limit / 1048576).toFixed(0)} MiB${why ? ` (${why})` : ""}`);

/** The body's text, refused with 413 as soon as it passes `limit` bytes (a declared length is checked before reading). */
async function boundedText(req: Request, limit: number, why?: string): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit, why);
  if (!req.body) return "";
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit, why);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString("utf8");
}

/** The body as a JSON object; an empty body is `{}`. At most `limit` bytes (413 past it, with `why` said). */
export async function readJson(req: Request, limit = MAX_JSON_BODY, why?: string): Promise<Body> {
  const text = await boundedText(req, limit, why);
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ApiError(400, "bad_json", "request body is not valid JSON");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ApiError(400, "bad_json", "request body must be a JSON object");
  return v as Body;
}

/** A non-empty string field (absent is fine when not `required`; then "" passes too). */
export const str = (body: Body, key: string, required = true): string | undefined => {
  const v = body[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== "string" || (required && v === "")) throw new ApiError(400, "bad_request", `"${key}" must be a non-empty string`);
  return v;
};

/** A required non-empty string field. */
export const need = (body: Body, key: string): string => str(body, key)!;

/** A required non-empty string that must be one of `allowed`; `code` and `message` say what else was expected. */
export function oneOf<T extends string>(body: Body, key: string, allowed: readonly T[], code: string, message: string): T {
  const v = need(body, key) as T;
  if (!allowed.includes(v)) throw new ApiError(400, code, message);
  return v;
}

/** An optional boolean field: absent = false. */
export function flag(body: Body, key: string): boolean {
  if (body[key] !== undefined && typeof body[key] !== "boolean") throw new ApiError(400, "bad_request", `"${key}" must be true or false`);
  return body[key] === true;
}

/** A turn number from a request body (absent is fine only when `optional`). */
export function turnNumber(v: unknown, optional = false): number | undefined {
  if (v === undefined && optional) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) throw new ApiError(400, "bad_request", `"turn" must be a turn number (1 or more)`);
  return v;
}

/** `images: [{ mediaType, data }]` (base64) pasted in the UI: checked here, sent only to vision models by the engine. */
export function pastedImages(v: unknown): ImageInput[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > MAX_IMAGES) throw new ApiError(400, "bad_request", `"images" must be a list of at most ${MAX_IMAGES} { mediaType, data } objects`);
  const out = v.map((x, i) => {
    const o = x as { mediaType?: unknown; data?: unknown; name?: unknown };
    if (typeof o?.mediaType !== "string" || typeof o?.data !== "string") throw new ApiError(400, "bad_request", `images[${i}]: needs mediaType and base64 data`);
    try {
      return imageFromBase64(o.data, o.mediaType, typeof o.name === "string" && o.name ? o.name.slice(0, 200) : `images[${i}]`);
    } catch (e) {
      throw new ApiError(400, "bad_image", errorMessage(e));
    }
  });
  try {
    checkImageTotal(out);
  } catch (e) {
    throw new ApiError(400, "bad_image", errorMessage(e));
  }
  return out;
}

/** The `inputs` object of a POST /api/trust body: relative path → sha256. */
export function seenDigests(body: Body): Record<string, string> {
  const v = body.inputs;
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ApiError(400, "bad_request", '"inputs" must be an object of path → sha256 (from GET /api/trust)');
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string" || !/^[0-9a-f]{64}$/.test(x)) throw new ApiError(400, "bad_request", `inputs["${k}"] must be a sha256 hex digest`);
    out[k] = x;
  }
  return out;
}
