/**
 * `@shot.png` in a typed message attaches the picture to it (png, jpeg, gif,
 * webp). Like other @references it is resolved only when it names an
 * existing file the path policy lets the agent read; otherwise the text stays
 * literal.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { expandTilde } from "../home.ts";
import { isImagePath, loadImage, MAX_IMAGES, type ImageInput } from "../providers/images.ts";
import type { PathPolicy } from "../policy/paths.ts";
import { ReasonixError } from "../errors.ts";

const TOKEN = /(?:^|\s)@("([^"]+)"|(\S+))/g;

export function imageReferences(prompt: string, workspace: string, policy?: PathPolicy): ImageInput[] {
  const out: ImageInput[] = [];
  const seen = new Set<string>();
  for (const m of prompt.matchAll(TOKEN)) {
    const raw = (m[2] ?? m[3] ?? "").replace(/[.,;:!?)]+$/, "");
    if (!isImagePath(raw)) continue;
    const expanded = expandTilde(raw);
    const abs = isAbsolute(expanded) ? expanded : resolve(workspace, expanded);
    if (seen.has(abs) || !existsSync(abs) || !statSync(abs).isFile()) continue;
    if (policy) {
      const d = policy.checkRead(abs);
      if (!d.allowed) throw new ReasonixError("image", `@${raw}: ${d.reason}`);
    }
    seen.add(abs);
    if (out.length >= MAX_IMAGES) throw new ReasonixError("image", `more than ${MAX_IMAGES} images in one message`);
    out.push(loadImage(abs, raw));
  }
  return out;
}
