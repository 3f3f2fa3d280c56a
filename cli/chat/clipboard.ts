// The system clipboard's picture, for Ctrl+V / /paste-image in the chat: read
// with whichever tool this machine has (wl-paste on Wayland, xclip on X11,
// pngpaste or osascript on macOS, PowerShell on Windows). Where none can work
// (no display, as over SSH; no tool installed) the answer says why and what
// to do instead. The bytes are checked by core/providers/images.ts (type by
// magic bytes, size) before they become an image.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_IMAGE_BYTES } from "../../core/providers/images.ts";

export type ClipboardImage = { ok: true; data: Buffer } | { ok: false; message: string };

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"];
/** Enough for the largest picture we accept, and a little to notice one that is larger. */
const MAX_READ = MAX_IMAGE_BYTES + 1024 * 1024;
const TIMEOUT_MS = 10_000;

const OTHERWISE = "save the picture in the workspace and write @name.png in the message, or paste it in the web UI (/web)";

async function run(cmd: string[], env: Record<string, string | undefined>): Promise<{ code: number; out: Buffer; err: string }> {
  const p = Bun.spawn(cmd, { env: env as Record<string, string>, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => p.kill("SIGKILL"), TIMEOUT_MS);
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const c of p.stdout) {
      size += c.byteLength;
      if (size > MAX_READ) {
        p.kill("SIGKILL");
        break;
      }
      chunks.push(c);
    }
    const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
    return { code, out: Buffer.concat(chunks), err: err.trim().split("\n")[0] ?? "" };
  } finally {
    clearTimeout(timer);
  }
}

/** The first picture type a tool's type list offers (PNG first), else PNG to try. */
const pickType = (listing: string): string => IMAGE_TYPES.find((t) => listing.split(/\s+/).includes(t)) ?? "image/png";

const empty = (tool: string, err: string) => ({ ok: false as const, message: `the clipboard holds no picture (${tool}${err ? `: ${err}` : " found none"}); copy an image first, or ${OTHERWISE}` });

async function viaTool(tool: string, list: string[], read: (type: string) => string[], env: Record<string, string | undefined>): Promise<ClipboardImage> {
  const types = await run(list, env);
  const r = await run(read(pickType(types.out.toString("utf8"))), env);
  if (r.code !== 0 || r.out.length === 0) return empty(tool, r.err);
  return { ok: true, data: r.out };
}

/** Through a temporary file (macOS osascript, Windows PowerShell write the picture there). */
async function viaFile(tool: string, cmd: (file: string) => string[], env: Record<string, string | undefined>): Promise<ClipboardImage> {
  const dir = mkdtempSync(join(tmpdir(), "reasonix-clip-"));
  try {
    const file = join(dir, "clip.png");
    const r = await run(cmd(file), env);
    let data: Buffer | undefined;
    try {
      data = readFileSync(file);
    } catch {
      data = undefined;
    }
    return r.code === 0 && data?.length ? { ok: true, data } : empty(tool, r.err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Read the clipboard's picture on this machine. */
export async function readClipboardImage(env: Record<string, string | undefined> = process.env, platform: NodeJS.Platform = process.platform): Promise<ClipboardImage> {
  const has = (cmd: string) => Bun.which(cmd, { PATH: env.PATH ?? "" }) !== null;
  if (platform === "darwin") {
    if (has("pngpaste")) return viaFile("pngpaste", (f) => ["pngpaste", f], env);
    return viaFile("osascript", (f) => ["osascript", "-e", `set f to open for access POSIX file "${f}" with write permission`, "-e", "write (the clipboard as «class PNGf») to f", "-e", "close access f"], env);
  }
  if (platform === "win32") {
    const ps = (f: string) => `Add-Type -AssemblyName System.Windows.Forms; $i = [System.Windows.Forms.Clipboard]::GetImage(); if ($i) { $i.Save('${f.replace(/'/g, "''")}', [System.Drawing.Imaging.ImageFormat]::Png) } else { exit 1 }`;
    return viaFile("PowerShell", (f) => ["powershell", "-NoProfile", "-STA", "-Command", ps(f)], env);
  }
  const wayland = !!env.WAYLAND_DISPLAY;
  const x11 = !!env.DISPLAY;
  if (!wayland && !x11) {
    const where = env.SSH_CONNECTION || env.SSH_TTY ? "this chat runs over SSH, where " : "";
    return { ok: false, message: `cannot read a clipboard: ${where}no display is set (DISPLAY and WAYLAND_DISPLAY are empty), so the clipboard of the computer you type on is out of reach; ${OTHERWISE}` };
  }
  if (wayland && has("wl-paste")) return viaTool("wl-paste", ["wl-paste", "--list-types"], (t) => ["wl-paste", "--no-newline", "--type", t], env);
  if (x11 && has("xclip")) return viaTool("xclip", ["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"], (t) => ["xclip", "-selection", "clipboard", "-t", t, "-o"], env);
  const need = wayland ? "wl-paste (package wl-clipboard)" : "xclip";
  return { ok: false, message: `cannot read the clipboard: ${need} is not installed (it reads pictures from the ${wayland ? "Wayland" : "X11"} clipboard); install it, or ${OTHERWISE}` };
}
