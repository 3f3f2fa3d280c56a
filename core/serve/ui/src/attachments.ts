// Pictures pasted or dropped into the composer, waiting to be sent with the
// next prompt. Checked here the way the server checks them again (type by the
// first bytes, 5 MiB each, 10 a message, 20 MiB together), so a refusal shows
// at once under the prompt box; the server's word is final (routes/body.ts).
import { imageType, MAX_IMAGE_BYTES as MAX_BYTES, MAX_IMAGES as MAX_COUNT, MAX_MESSAGE_IMAGE_BYTES as MAX_TOTAL } from "../../../protocol/image-type.ts";
import { changed } from "./store.ts";

export interface Attached {
  /** `image #N` in the prompt: the token the message carries where the picture goes. */
  n: number;
  name: string;
  mediaType: string;
  /** Base64 bytes. */
  data: string;
}


export const attachments = { list: [] as Attached[], error: "" };

function base64(b: Uint8Array): string {
  let out = "";
  for (let i = 0; i < b.length; i += 0x8000) out += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(out);
}

const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;

/** Add the picture files among `files` (others are refused by name). */
export async function attachFiles(files: File[]): Promise<void> {
  const errors: string[] = [];
  for (const f of files) {
    const name = f.name || "pasted image";
    if (attachments.list.length >= MAX_COUNT) {
      errors.push(`${name}: at most ${MAX_COUNT} pictures in one message`);
      continue;
    }
    if (f.size > MAX_BYTES) {
      errors.push(`${name} is ${mib(f.size)}; pictures may be at most ${MAX_BYTES / 1048576} MiB`);
      continue;
    }
    const total = attachments.list.reduce((n, a) => n + (a.data.length * 3) / 4, 0);
    if (total + f.size > MAX_TOTAL) {
      errors.push(`${name}: the pictures of one message may add up to ${MAX_TOTAL / 1048576} MiB`);
      continue;
    }
    const bytes = new Uint8Array(await f.arrayBuffer());
    const mediaType = imageType(bytes);
    if (!mediaType) {
      errors.push(`${name} is not a PNG, JPEG, GIF or WebP picture`);
      continue;
    }
    const n = Math.max(0, ...attachments.list.map((a) => a.n)) + 1;
    attachments.list = [...attachments.list, { n, name, mediaType, data: base64(bytes) }];
  }
  attachments.error = errors.join(" · ");
  changed();
}

export function detach(n: number): void {
  attachments.list = attachments.list.filter((a) => a.n !== n);
  attachments.error = "";
  changed();
}

/** The prompt with a token for each picture its text does not name yet, and the pictures for the request. */
export function withAttachments(prompt: string): { prompt: string; images?: { mediaType: string; data: string; name: string }[] } {
  if (attachments.list.length === 0) return { prompt };
  const missing = attachments.list.filter((a) => !prompt.includes(`[image #${a.n}]`)).map((a) => `[image #${a.n}]`);
  return {
    prompt: missing.length ? [prompt.trimEnd(), missing.join(" ")].filter(Boolean).join("\n") : prompt,
    images: attachments.list.map((a) => ({ mediaType: a.mediaType, data: a.data, name: a.name })),
  };
}

/**
 * The same for the queue: each picture named by its token (`image #N`), so
 * the host knows which token places it (an edit that removes the token drops
 * the picture, core/host/queue.ts).
 */
export function queuedWithAttachments(prompt: string): { text: string; images?: { mediaType: string; data: string; name: string }[] } {
  const { prompt: text, images } = withAttachments(prompt);
  return { text, ...(images ? { images: attachments.list.map((a) => ({ mediaType: a.mediaType, data: a.data, name: `image #${a.n}` })) } : {}) };
}

/** After a prompt with them was accepted. */
export function clearAttachments(): void {
  attachments.list = [];
  attachments.error = "";
  changed();
}
