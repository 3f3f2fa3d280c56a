/**
 * Put the version-matched binary on the remote (under the caller's lock): npm, the
 * remote downloading the release itself, or an upload (a cached compressed copy, the
 * binary compressed while it streams, or raw).
 */
import { mkdirSync, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { homePaths } from "../../core/home.ts";
import { fetchText, parseSums, releaseBase } from "../../core/release/download.ts";
import { runScript } from "../ssh/exec.ts";
import { compressedCacheName, findCompressed, resolveArtifactLate, type LateArtifact } from "./artifact.ts";
import { adaptiveStream } from "./adaptive-stream.ts";
import { FETCH_SCRIPT, NPM_INSTALL_SCRIPT } from "./install-scripts.ts";
import { parseKv } from "./scripts.ts";
import type { Fence } from "./lock.ts";
import { fileChunks } from "./stream-compress.ts";
import { UploadController } from "./upload-controller.ts";
import type { BootstrapOptions, InstallSource, RemoteState } from "./types.ts";
import { uploadBinary, type Payload, type PayloadSource } from "./upload.ts";

const fail = (code: string, message: string, hint?: string) => new ReasonixError(code, message, { hint });
export async function kv(client: Client, script: string, args: string[], timeoutMs = 60_000): Promise<Map<string, string>> {
  const res = await runScript(client, script, { args, timeoutMs });
  return parseKv(res.stdout + (res.stderr ? `\nstderr=${res.stderr.trim()}` : ""));
}

/** Where uploads keep compressed copies and remembered hashes. */
export const uploadCacheDir = (o: BootstrapOptions) => o.cacheDir ?? join(homePaths().home, "cache", "remote");

export const binPath = (s: RemoteState, version: string) => `${s.home}/.reasonix/remote/bin/reasonix-${version}`;

/**
 * An upload the remote received but has not put in place: the fenced start compares
 * its hash with `sha256` (computed here while it was sent) before it renames it.
 */
export interface Placement {
  key: string;
  sha256: Promise<string>;
}

/** The value of `p` if it has settled already (a remembered hash), else undefined. */
async function settled<T>(p: Promise<T>): Promise<T | undefined> {
  return Promise.race([p.catch(() => undefined), new Promise<undefined>((r) => setImmediate(() => r(undefined)))]);
}

export async function install(client: Client, s: RemoteState, version: string, o: BootstrapOptions, fence: Fence): Promise<Placement | undefined> {
  const mode = o.install ?? "auto";
  if (mode === "never") {
    throw fail("serve_missing", `reasonix ${version} is not installed on the remote (${binPath(s, version)}) and serve_install = "never"`, 'install it there yourself, or set serve_install = "auto"');
  }
  if (mode === "npm") {
    o.onEvent?.({ event: "installing", phase: "npm", done: 0, total: 0 });
    const r = await kv(client, NPM_INSTALL_SCRIPT, [version], 600_000);
    if (!r.get("installed")) throw fail("install_failed", `npm install on the remote failed: ${r.get("error") ?? r.get("stderr") ?? "unknown error"}`);
    return;
  }
  const started = performance.now();
  if (await remoteDownload(client, s, version, o, started)) return;
  const cacheDir = uploadCacheDir(o);
  const progress = (phase: "download" | "extract" | "compress", done: number, total: number) => o.onEvent?.({ event: "installing", phase, done, total });
  const art = await resolveArtifactLate({ platform: s.platform!, version, binaryPath: o.binaryPath, releaseDir: o.releaseDir, cacheDir, onProgress: progress });
  if (!["sha256sum", "shasum", "openssl"].some((t) => s.tools.has(t))) {
    throw fail("install_failed", "the remote has none of sha256sum, shasum or openssl to verify the upload", 'install coreutils there, or use serve_install = "npm"');
  }
  const { payload, source } = await choosePayload(art, s, o, cacheDir);
  o.onEvent?.({ event: "install_source", ...source });
  const up = await uploadBinary(client, art, payload, fence, (done, total) => o.onEvent?.({ event: "installing", phase: "upload", done, total }));
  // ms covers the whole install (lookup, cache, upload, remote check), not just the transfer.
  const adaptive = up.summary ? { levels: up.summary.levels, ...(up.summary.linkBytesPerSec ? { link_bytes_per_s: Math.round(up.summary.linkBytesPerSec) } : {}) } : {};
  o.onEvent?.({ event: "installed", bytes: up.bytesSent, binary_size: art.size, codec: payload.codec, ms: Math.round(performance.now() - started), ...(up.resumedFrom ? { resumed_from: up.resumedFrom } : {}), ...adaptive });
  return { key: art.key, sha256: art.sha256 };
}

/**
 * Source (a): the remote downloads the release artifact itself, checked against the
 * SHA-256 the local side read from SHA256SUMS. Only where a release URL is meant to
 * be used (not for an explicit binary, nor for a local release directory unless
 * $REASONIX_DOWNLOAD_URL names a mirror). True when it installed the binary.
 */
async function remoteDownload(client: Client, s: RemoteState, version: string, o: BootstrapOptions, started: number): Promise<boolean> {
  const env = process.env;
  const releaseDir = o.releaseDir ?? env.REASONIX_RELEASE_DIR;
  if (o.binaryPath || (releaseDir && !env.REASONIX_DOWNLOAD_URL)) return false;
  if (!s.tools.has("curl") && !s.tools.has("wget")) return false;
  if (!["sha256sum", "shasum", "openssl"].some((t) => s.tools.has(t))) return false;
  const name = `reasonix-${s.platform}`;
  const base = releaseBase(version, env);
  let sums: string;
  try {
    sums = releaseDir && existsSync(join(releaseDir, "SHA256SUMS")) ? readFileSync(join(releaseDir, "SHA256SUMS"), "utf8") : await withTimeout(fetchText(`${base}/SHA256SUMS`), 10_000);
  } catch {
    return false; // we cannot vouch for anything the remote would fetch
  }
  const listed = parseSums(sums);
  const kind = s.tools.has("zstd") && listed.has(`${name}.zst`) ? "zst" : s.tools.has("gzip") && s.tools.has("tar") && listed.has(`${name}.tar.gz`) ? "tgz" : null;
  if (!kind) return false;
  const file = `${name}.${kind === "zst" ? "zst" : "tar.gz"}`;
  const url = `${base}/${file}`;
  o.onEvent?.({ event: "install_source", source: "remote_download", codec: kind === "zst" ? "zstd" : "gzip", url });
  const res = await runScript(client, FETCH_SCRIPT, {
    args: [version, url, kind, listed.get(file)!],
    timeoutMs: 960_000,
    onLine: (line) => {
      if (line.startsWith("progress=")) o.onEvent?.({ event: "installing", phase: "remote_download", done: Number(line.slice(9)) || 0, total: 0 });
    },
  }).catch((e: Error) => ({ stdout: `error=${e.message}`, stderr: "", code: 1, signal: null }));
  const r = parseKv(res.stdout);
  if (r.get("installed") === "1") {
    o.onEvent?.({ event: "installed", bytes: 0, binary_size: Number(r.get("bytes")) || 0, codec: kind === "zst" ? "zstd" : "gzip", ms: Math.round(performance.now() - started) });
    return true;
  }
  o.onEvent?.({ event: "install_fallback", from: "remote_download", reason: r.get("error") ?? (res.stderr.trim() || "unknown error") });
  return false;
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`no answer within ${ms} ms`)), ms).unref?.())]);

/**
 * What to send, fastest first: a compressed copy already made for this build
 * (cache or release), else the binary in segments whose compression the upload
 * picks as it goes from the link and compression speeds it measures (raw
 * segments when the link outruns compression). The segmented and raw payloads
 * can start midway (resuming an upload a lost link cut short).
 */
async function choosePayload(art: LateArtifact, s: RemoteState, o: BootstrapOptions, cacheDir: string): Promise<{ payload: PayloadSource; source: InstallSource }> {
  const codecs = { zstd: s.tools.has("zstd"), gzip: s.tools.has("gzip") };
  // A compressed copy is found by the binary's hash: looked for only when the hash is known
  // already (remembered, or a release's). A binary still being hashed was never sent from here.
  const sha = await settled(art.sha256);
  const ready = sha ? findCompressed({ ...art, sha256: sha }, cacheDir, codecs) : null;
  if (ready) {
    const size = statSync(ready.path).size;
    const open = (from: number) => (from > 0 ? null : Promise.resolve<Payload>({ codec: ready.codec, chunks: fileChunks(ready.path), progress: (sent) => [sent, size] }));
    return { payload: { codec: ready.codec, open }, source: { source: "cached", codec: ready.codec, bytes: size } };
  }
  if (!codecs.zstd && !codecs.gzip) {
    const open = (from: number) => Promise.resolve<Payload>({ codec: "raw", chunks: fileChunks(art.path, from), progress: (sent) => [from + sent, art.size] });
    return { payload: { codec: "raw", open }, source: { source: "raw", codec: "raw" } };
  }
  const codec = codecs.zstd ? "zstd" : "gzip";
  // REASONIX_REMOTE_ZSTD_LEVEL (or compressionLevel) fixes the level; otherwise the upload decides as it goes.
  const envLevel = Number(process.env.REASONIX_REMOTE_ZSTD_LEVEL);
  const want = o.compressionLevel ?? (Number.isInteger(envLevel) && envLevel > 0 && envLevel <= 22 ? envLevel : undefined);
  const fixed = want === undefined ? undefined : codec === "gzip" ? Math.min(9, want) : want;
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const open = async (from: number): Promise<Payload> => {
    const controller = new UploadController({ codec, fixed });
    const stream = adaptiveStream(art, {
      controller,
      from,
      // Named by the hash at the end of the stream, when it is long known.
      cachePath: (level) => art.sha256.then((sha) => join(cacheDir, compressedCacheName(sha, codec, level))),
      cacheTemp: join(cacheDir, `upload-${art.key}.${process.pid}.${Date.now()}.tmp`),
    });
    return { codec, chunks: stream.chunks, progress: () => [from + stream.rawDone(), art.size], abort: () => stream.abort(), summary: () => stream.summary() };
  };
  const start = new UploadController({ codec, fixed }).level;
  return { payload: { codec, open }, source: { source: "stream", codec, level: start, ...(fixed === undefined ? { adaptive: true } : {}) } };
}
