/**
 * Image input: a picture attached to a user message, sent in each kind's
 * documented shape — Chat Completions `image_url` (data URL or URL),
 * Anthropic `image` with a base64 or url source, Responses `input_image` —
 * and only to models whose entry says `vision = true`.
 */
import { readFileSync, statSync } from "node:fs";
import { extname } from "node:path";
import { ReasonixError } from "../errors.ts";
import type { ImageInput } from "../protocol/contract.ts";
export type { ImageInput } from "../protocol/contract.ts";
import { imageType, MAX_IMAGE_BYTES, MAX_IMAGES, MAX_MESSAGE_IMAGE_BYTES } from "../protocol/image-type.ts";
export { MAX_IMAGE_BYTES, MAX_IMAGES, MAX_MESSAGE_IMAGE_BYTES } from "../protocol/image-type.ts";

const TYPES: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };
export const isImagePath = (p: string): boolean => extname(p).toLowerCase() in TYPES;

/** Read an image file (already cleared by the path policy), with size and type checks. */
export function loadImage(abs: string, name = abs): ImageInput {
  const st = statSync(abs);
  if (st.size > MAX_IMAGE_BYTES) throw new ReasonixError("image", `${name} is ${(st.size / 1048576).toFixed(1)} MiB; images may be at most ${MAX_IMAGE_BYTES / 1048576} MiB`, { hint: "shrink or crop it first" });
  const buf = readFileSync(abs);
  const type = imageType(buf); // by the first bytes: a renamed file is not a picture
  if (!type) throw new ReasonixError("image", `${name} is not a PNG, JPEG, GIF or WebP image`);
  return { mediaType: type, data: buf.toString("base64"), name };
}

/** A pasted/attached image given as base64 (web UI, ACP). */
export function imageFromBase64(data: string, mediaType: string, name = "pasted image"): ImageInput {
  const buf = Buffer.from(data, "base64");
  if (buf.length > MAX_IMAGE_BYTES) throw new ReasonixError("image", `${name} is ${(buf.length / 1048576).toFixed(1)} MiB; images may be at most ${MAX_IMAGE_BYTES / 1048576} MiB`);
  const type = imageType(buf); // by the first bytes: a renamed file is not a picture
  if (!type || type !== mediaType) throw new ReasonixError("image", `${name} is not a ${mediaType} image`);
  return { mediaType: type, data: buf.toString("base64"), name };
}

/** The pictures of one message together stay under MAX_MESSAGE_IMAGE_BYTES. */
export function checkImageTotal(images: ImageInput[]): void {
  const total = images.reduce((n, i) => n + (i.data ? Math.floor((i.data.length * 3) / 4) : 0), 0);
  if (total > MAX_MESSAGE_IMAGE_BYTES) {
    throw new ReasonixError("image", `the images of one message add up to ${(total / 1048576).toFixed(1)} MiB; at most ${MAX_MESSAGE_IMAGE_BYTES / 1048576} MiB together`, { hint: "send fewer or smaller pictures" });
  }
}

export function checkVision(images: ImageInput[] | undefined, vision: boolean, model: string, provider: string): void {
  if (!images || images.length === 0) return;
  if (images.length > MAX_IMAGES) throw new ReasonixError("image", `${images.length} images in one message; at most ${MAX_IMAGES}`);
  checkImageTotal(images);
  if (!vision) {
    throw new ReasonixError("image", `model ${model} (provider "${provider}") is not marked as accepting images, so ${images.map((i) => i.name ?? "the image").join(", ")} cannot be sent`, {
      hint: `if it does, set vision = true in its [[providers]] entry`,
    });
  }
}

const dataUrl = (i: ImageInput) => i.url ?? `data:${i.mediaType};base64,${i.data}`;

export const openAIImagePart = (i: ImageInput) => ({ type: "image_url", image_url: { url: dataUrl(i) } });
export const anthropicImageBlock = (i: ImageInput) =>
  i.url ? { type: "image", source: { type: "url", url: i.url } } : { type: "image", source: { type: "base64", media_type: i.mediaType, data: i.data } };
export const responsesImagePart = (i: ImageInput) => ({ type: "input_image" as const, image_url: dataUrl(i), detail: "auto" as const });
