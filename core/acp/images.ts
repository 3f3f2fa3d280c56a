/**
 * Pictures in ACP prompts: `image` content blocks (base64 + mimeType) become
 * the turn's SubmitOptions.images, checked like pasted images (type sniffed,
 * size and count capped; core/providers/images.ts). They are advertised
 * (promptCapabilities.image) when the model a new session gets by default
 * accepts images, and a prompt with a picture for a model that does not is
 * refused up front, naming the model and the setting.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { loadConfig } from "../config/load.ts";
import type { ModelInfo } from "../engine/types.ts";
import { errorMessage } from "../errors.ts";
import { providerEntries, selectModel } from "../providers/config.ts";
import { checkVision, imageFromBase64, MAX_IMAGES, type ImageInput } from "../providers/images.ts";

/** The image blocks of a prompt as engine images; bad ones are invalid params naming the block. */
export function promptImages(blocks: acp.ContentBlock[], field = "prompt"): ImageInput[] {
  const out: ImageInput[] = [];
  blocks.forEach((b, i) => {
    if (b.type !== "image") return;
    const where = `${field}[${i}]`;
    if (typeof b.data !== "string" || !b.data) throw RequestError.invalidParams({ field: `${where}.data` }, `${where}.data: an image needs its bytes (base64)`);
    if (out.length >= MAX_IMAGES) throw RequestError.invalidParams({ field }, `${field}: at most ${MAX_IMAGES} images in one prompt`);
    try {
      out.push(imageFromBase64(b.data, b.mimeType, b.uri ?? `image ${out.length + 1}`));
    } catch (e) {
      throw RequestError.invalidParams({ field: where }, `${where}: ${errorMessage(e)}`);
    }
  });
  return out;
}

/** Refuse pictures for a model whose entry does not say `vision = true`. */
export function checkModelVision(images: ImageInput[], model: ModelInfo | undefined, field = "prompt"): void {
  if (images.length === 0) return;
  try {
    checkVision(images, model?.vision === true, model?.model ?? "?", model?.name ?? "?");
  } catch (e) {
    const hint = (e as { hint?: string }).hint;
    throw RequestError.invalidParams({ field }, `${errorMessage(e)}${hint ? ` (${hint})` : ""}`);
  }
}

/** Whether the model new sessions start with (user config, this directory's project) accepts images. */
export function defaultModelVision(home: string, cwd = process.cwd()): boolean {
  try {
    const values = loadConfig({ cwd, home }).values;
    return selectModel(providerEntries(values), undefined, values.default_model as string | undefined).entry.vision === true;
  } catch {
    return false;
  }
}
