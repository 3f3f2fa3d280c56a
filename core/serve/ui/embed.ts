// Bun macro: runs when the server module is bundled (or first loaded from
// source), so the web UI ships inside the binary and is never read from disk
// or fetched from a CDN at runtime.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface UiBundle {
  html: string;
  js: string;
  css: string;
  /** Short content hash, used as the asset cache-buster. */
  digest: string;
}

export function embedUi(): UiBundle {
  const dir = import.meta.dir;
  const read = (name: string) => readFileSync(join(dir, name), "utf8");
  const transpiler = new Bun.Transpiler({ loader: "ts", target: "browser", minifyWhitespace: false });
  const js = transpiler.transformSync(read("app.ts"));
  const html = read("index.html");
  const css = read("app.css");
  const digest = createHash("sha256").update(html).update("\0").update(js).update("\0").update(css).digest("hex").slice(0, 12);
  return { html, js, css, digest };
}
