/**
 * What a picture is, by its first bytes (never by its name), and how much a
 * message may carry: read by the engine (core/providers/images.ts), the
 * terminal chat and the web UI alike. Browser-safe.
 */

/** Per image; vendors cap around 5 MB (Anthropic) to 20 MB (OpenAI): the smallest wins. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_IMAGES = 10;
/** All the pictures of one message together (decoded): vendors cap a whole request around 20–32 MB. */
export const MAX_MESSAGE_IMAGE_BYTES = 20 * 1024 * 1024;

const latin1 = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** PNG, JPEG, GIF or WebP by the first bytes: the media type, or undefined. */
export function imageType(b: Uint8Array): string | undefined {
  if (b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x)) return "image/png";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (latin1(b, 0, 6) === "GIF87a" || latin1(b, 0, 6) === "GIF89a") return "image/gif";
  if (latin1(b, 0, 4) === "RIFF" && latin1(b, 8, 12) === "WEBP") return "image/webp";
  return undefined;
}
