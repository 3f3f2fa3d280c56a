// Bun macro: runs when the server module is bundled (or first loaded from
// source), so the web UI ships inside the binary and is never read from disk
// or fetched from a CDN at runtime. The app (src/, Preact + marked +
// highlight.js) is bundled by `bun build` in a child process — Bun.build
// cannot run inside a macro — and cached by content hash under
// node_modules/.cache so starting serve from source stays fast.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export interface UiBundle {
  html: string;
  /** The script and the stylesheet gzipped (level 9), base64: what browsers get, a third of the bytes in the binary. */
  jsGz: string;
  cssGz: string;
  /** Short content hash, used as the asset cache-buster. */
  digest: string;
}

const DIR = import.meta.dir;
const ROOT = resolve(DIR, "..", "..", "..");
/** Stylesheets in cascade order; the highlight.js themes come from the package. */
const STYLES = ["styles/base.css", "styles/layout.css", "styles/transcript.css", "styles/code.css", "styles/sessions.css", "styles/memory.css", "styles/mcp.css", "styles/settings.css"];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

function bundleJs(key: string): string {
  const cacheDir = join(ROOT, "node_modules", ".cache", "reasonix-ui");
  const cached = join(cacheDir, `${key}.js`);
  if (existsSync(cached)) return readFileSync(cached, "utf8");
  const r = Bun.spawnSync([process.execPath, "build", join(DIR, "src", "main.tsx"), "--target=browser", "--minify", "--format=iife"], { cwd: ROOT, stderr: "pipe", stdout: "pipe" });
  if (r.exitCode !== 0) throw new Error(`bundling the web UI failed:\n${r.stderr.toString()}`);
  const js = r.stdout.toString();
  try {
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${cached}.${process.pid}.tmp`;
    writeFileSync(tmp, js);
    renameSync(tmp, cached);
  } catch {
    // A read-only checkout just bundles again next time.
  }
  return js;
}

export function embedUi(): UiBundle {
  const read = (name: string) => readFileSync(join(DIR, name), "utf8");
  const src = createHash("sha256");
  // The app and core/protocol (the events and the transcript fold it imports): a change to either bundles again.
  for (const f of [...files(join(DIR, "src")), ...files(join(ROOT, "core", "protocol"))]) src.update(f).update("\0").update(readFileSync(f)).update("\0");
  for (const dep of ["preact", "marked", "highlight.js"]) src.update(readFileSync(join(ROOT, "node_modules", dep, "package.json")));
  src.update(Bun.version);
  const js = bundleJs(src.digest("hex").slice(0, 24));
  const html = read("index.html");
  const css = STYLES.map(read).join("\n");
  const digest = createHash("sha256").update(html).update("\0").update(js).update("\0").update(css).digest("hex").slice(0, 12);
  const gz = (text: string) => Buffer.from(Bun.gzipSync(text, { level: 9 })).toString("base64");
  return { html, jsGz: gz(js), cssGz: gz(css), digest };
}
