// Pictures pasted into the chat's composer (Ctrl+V, Alt+V on Windows,
// /paste-image): each becomes an `[image #N]` token in the text, which the user
// may move or delete like any other text. When the message is sent, the tokens
// still in it (in their order) become the message's images; a deleted token
// sends nothing. The token stays in the text the model reads, so it knows
// where each picture belongs, and a resumed session shows it in place.
import { errorMessage } from "../../core/errors.ts";
import { imageFromBase64, MAX_IMAGES, type ImageInput } from "../../core/providers/images.ts";
import { imageType } from "../../core/protocol/image-type.ts";
import type { SubmitOptions } from "../../core/protocol/contract.ts";
import { readClipboardImage, type ClipboardImage } from "./clipboard.ts";

/** Pictures kept for tokens not sent yet (older ones are forgotten first). */
const KEEP = 32;
const TOKEN = /\[image #(\d+)\]/g;

export class PastedImages {
  private next = 1;
  private readonly byNumber = new Map<number, ImageInput>();

  constructor(private readonly read: () => Promise<ClipboardImage> = () => readClipboardImage()) {}

  /** Read the clipboard: the token to insert, or a sentence saying why there is none. */
  async paste(): Promise<{ token: string } | { error: string }> {
    let got: ClipboardImage;
    try {
      got = await this.read();
    } catch (e) {
      return { error: `cannot read the clipboard: ${errorMessage(e)}` };
    }
    if (!got.ok) return { error: got.message };
    const type = imageType(got.data);
    if (!type) return { error: "the clipboard's content is not a PNG, JPEG, GIF or WebP picture" };
    const n = this.next++;
    try {
      this.byNumber.set(n, imageFromBase64(got.data.toString("base64"), type, `image #${n}`));
    } catch (e) {
      return { error: errorMessage(e) };
    }
    for (const k of this.byNumber.keys()) if (this.byNumber.size > KEEP) this.byNumber.delete(k);
    return { token: `[image #${n}]` };
  }

  /** Paste: the token goes to `insert`, or why there is none to `warn`. */
  async pasteInto(insert: (token: string) => void, warn: (message: string) => void): Promise<void> {
    const r = await this.paste();
    if ("token" in r) insert(r.token);
    else warn(r.error);
  }

  /** The pictures whose tokens are in `text`, in order (each once). */
  images(text: string): ImageInput[] {
    const out: ImageInput[] = [];
    const seen = new Set<number>();
    for (const m of text.matchAll(TOKEN)) {
      const n = Number(m[1]);
      const img = this.byNumber.get(n);
      if (!img || seen.has(n)) continue;
      seen.add(n);
      out.push(img);
    }
    return out.slice(0, MAX_IMAGES + 1); // one past the limit: the engine refuses the message saying so
  }

  /** What to submit `text` with: its pictures, or nothing. */
  options(text: string): SubmitOptions | undefined {
    const images = this.images(text);
    return images.length ? { images } : undefined;
  }
}
