/**
 * Find the reasonix binary to upload for a remote platform, and keep a
 * compressed copy of it in a local cache so only the first install of a
 * version pays for compression.
 *
 * Sources, in order: an explicit path (tests, benchmarks); this very binary
 * when it is a compiled build for the same platform and version;
 * $REASONIX_RELEASE_DIR; the release URL. Release files are checked against
 * SHA256SUMS before use.
 */
import { createHash } from "node:crypto";
import { closeSync, copyFileSync, createReadStream, createWriteStream, existsSync, rmSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { ReasonixError } from "../../core/errors.ts";
import { downloadFile, extractBinary, parseSums, progressTap, releaseBase, sha256File, tempBeside, verifyFile, type TransferProgress } from "../../core/release/download.ts";
import { writeFileAtomic } from "../../core/fs/atomic.ts";
import { buildInfo, platformId } from "../../core/version.ts";
import { inProcessCompressor, zstdCliArgs } from "./stream-compress.ts";
import type { BinaryArtifact, Codec } from "./artifact-types.ts";

export type { BinaryArtifact, Codec };

export interface CompressedArtifact {
  codec: Codec;
  path: string;
  size: number;
}

export type ProgressFn = (phase: "download" | "extract" | "compress", done: number, total: number) => void;

/** True when we are a `bun build --compile` executable rather than source run by bun. */
export function isCompiledBinary(): boolean {
  return Bun.main.startsWith("/$bunfs/") || /^[A-Z]:\\~BUN\\/.test(Bun.main);
}

const cacheName = (sha: string, suffix: string) => `reasonix-${sha.slice(0, 24)}${suffix}`;

/** The cache file name of `codec` at `level` for the binary with this SHA-256. */
export const compressedCacheName = (sha: string, codec: Exclude<Codec, "raw">, level: number) => cacheName(sha, `.${codec}${level}`);

/**
 * A complete compressed copy of this build already in the cache (made by an earlier
 * upload to any host, or kept from a release), in a codec the remote can decompress.
 * zstd first; among several levels, the smallest file.
 */
export function findCompressed(art: BinaryArtifact, cacheDir: string, remote: { zstd: boolean; gzip: boolean }): CompressedArtifact | null {
  let names: string[];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return null;
  }
  for (const codec of ["zstd", "gzip"] as const) {
    if (!remote[codec]) continue;
    const prefix = cacheName(art.sha256, `.${codec}`);
    const hits = names
      .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
      .map((n) => ({ codec, path: join(cacheDir, n), size: statSync(join(cacheDir, n)).size }))
      .sort((a, b) => a.size - b.size);
    if (hits[0]) return hits[0];
  }
  return null;
}

/** Narrow a phased progress callback to one phase, for the shared release helpers. */
const phase = (name: "download" | "extract" | "compress", f?: ProgressFn): TransferProgress | undefined =>
  f && ((done, total) => f(name, done, total));

export interface ResolveArtifactOptions {
  platform: string;
  version?: string;
  /** Use this executable (must be built for `platform`). */
  binaryPath?: string;
  releaseDir?: string;
  releaseUrl?: string;
  cacheDir: string;
  onProgress?: ProgressFn;
  env?: NodeJS.ProcessEnv;
}

/** In-flight and finished hashes of this process, by file identity (path, size, mtime, inode). */
const shaInFlight = new Map<string, Promise<string>>();

/**
 * SHA-256 of a local executable, remembered by (path, size, mtime, inode) on disk so
 * that connects after the first do not re-hash 100 MB, and in memory so a hash begun
 * early (see prefetchSha) is awaited rather than computed twice.
 */
function cachedSha(path: string, cacheDir: string): Promise<string> {
  const st = statSync(path);
  const key = `${path}\0${st.size}\0${st.mtimeMs}\0${st.ino}`;
  let p = shaInFlight.get(key);
  if (!p) {
    p = hashAndRemember(path, st, cacheDir);
    shaInFlight.set(key, p);
    p.catch(() => shaInFlight.delete(key));
  }
  return p;
}

async function hashAndRemember(path: string, st: { size: number; mtimeMs: number; ino: number }, cacheDir: string): Promise<string> {
  const memo = join(cacheDir, `sha-${createHash("sha256").update(path).digest("hex").slice(0, 16)}.json`);
  try {
    const m = JSON.parse(readFileSync(memo, "utf8")) as { size: number; mtimeMs: number; ino?: number; sha256: string };
    if (m.size === st.size && m.mtimeMs === st.mtimeMs && m.ino === st.ino) return m.sha256;
  } catch {}
  const sha = await sha256File(path);
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    writeFileAtomic(memo, JSON.stringify({ size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, sha256: sha }), { mode: 0o600 });
  } catch {}
  return sha;
}

/**
 * Begin hashing the executable an upload would send (an explicit binary, or this very
 * compiled build) while the remote is still being asked what it has: a cold install
 * then finds the hash ready instead of reading 100 MB first. Free when the hash is
 * remembered; never throws (the real lookup reports any error).
 */
export function prefetchSha(o: { binaryPath?: string; cacheDir: string }): void {
  const path = o.binaryPath ?? (isCompiledBinary() ? process.execPath : undefined);
  if (!path) return;
  try {
    cachedSha(path, o.cacheDir).catch(() => {});
  } catch {}
}

/**
 * A name for this very file (path, size, mtime, inode) that needs no read of it: what an
 * upload's leftover `.part` on the remote is named by, so an upload starts (and resumes)
 * before the binary's SHA-256 is known. The hash is still what decides: the remote
 * compares it before the binary is put in place.
 */
export function identityKey(path: string, st = statSync(path)): string {
  return createHash("sha256").update(`${path}\0${st.size}\0${st.mtimeMs}\0${st.ino}`).digest("hex").slice(0, 32);
}

/** An artifact whose SHA-256 may still be being computed, and its identity key. */
export type LateArtifact = Omit<BinaryArtifact, "sha256"> & { sha256: Promise<string>; key: string };

/**
 * resolveArtifact without waiting for the hash where it is not known yet (an explicit
 * executable, or this very build): the upload goes out while it is computed. Release
 * files are verified against SHA256SUMS first, as always.
 */
export async function resolveArtifactLate(o: ResolveArtifactOptions): Promise<LateArtifact> {
  const version = o.version ?? buildInfo().version;
  const self = !o.binaryPath && isCompiledBinary() && platformId() === o.platform && buildInfo().version === version;
  // A release artifact kept by `reasonix upgrade` is adopted by the eager path (it needs the hash).
  const kept = self && existsSync(join(o.cacheDir, `release-${version}`, `reasonix-${o.platform}.zst`));
  const path = o.binaryPath ?? (self && !kept ? process.execPath : undefined);
  if (path) {
    const st = statSync(path);
    const sha256 = cachedSha(path, o.cacheDir);
    sha256.catch(() => {}); // awaited where it is needed
    return { platform: o.platform, version, path, size: st.size, sha256, key: identityKey(path, st), source: o.binaryPath ?? "this executable" };
  }
  const art = await resolveArtifact(o);
  return { ...art, sha256: Promise.resolve(art.sha256), key: identityKey(art.path) };
}

async function describe(path: string, platform: string, version: string, source: string, sha: string | undefined, cacheDir: string): Promise<BinaryArtifact> {
  return { platform, version, path, size: statSync(path).size, sha256: sha ?? (await cachedSha(path, cacheDir)), source };
}

/** Decompress a zstd file (long window allowed) to `dest`. */
async function unzstd(src: string, dest: string): Promise<void> {
  const cli = Bun.which("zstd");
  if (cli) {
    const fd = openSync(dest, "w", 0o700);
    try {
      const r = Bun.spawnSync([cli, "-dcq", "--long=27", src], { stdout: fd, stderr: "pipe" });
      if (r.exitCode !== 0) throw new ReasonixError("artifact_invalid", `${src} does not decompress: ${r.stderr.toString().trim()}`);
    } finally {
      closeSync(fd);
    }
    return;
  }
  const zlib = (await import("node:zlib")) as unknown as { createZstdDecompress(o: { params: Record<number, number> }): import("node:stream").Transform; constants: Record<string, number> };
  const c = zlib.constants;
  await pipeline(createReadStream(src), zlib.createZstdDecompress({ params: { [c.ZSTD_d_windowLogMax!]: 27 } }), createWriteStream(dest, { mode: 0o700 }));
}

/**
 * Take a release's precompressed upload artifact (`reasonix-<platform>.zst`, made
 * once by the build): verified against SHA256SUMS, decompressed once here for the
 * binary's own hash (what the remote checks), and kept in the cache as this build's
 * compressed copy, so the upload sends it without compressing anything.
 */
async function adoptPrecompressed(zst: string, sums: string, name: string, o: ResolveArtifactOptions, version: string, source: string): Promise<BinaryArtifact> {
  const zsha = await verifyFile(zst, sums, `${name}.zst`);
  const memo = join(o.cacheDir, `zst-${zsha.slice(0, 24)}.json`);
  try {
    const m = JSON.parse(readFileSync(memo, "utf8")) as { sha256: string };
    const raw = join(o.cacheDir, cacheName(m.sha256, `-${o.platform}`));
    if (existsSync(raw) && existsSync(join(o.cacheDir, compressedCacheName(m.sha256, "zstd", 19)))) return describe(raw, o.platform, version, source, m.sha256, o.cacheDir);
  } catch {}
  const tmp = tempBeside(join(o.cacheDir, `${name}.raw`));
  try {
    o.onProgress?.("extract", 0, statSync(zst).size);
    await unzstd(zst, tmp);
    o.onProgress?.("extract", statSync(zst).size, statSync(zst).size);
    const sha = await sha256File(tmp);
    const raw = join(o.cacheDir, cacheName(sha, `-${o.platform}`));
    renameSync(tmp, raw);
    const packed = join(o.cacheDir, compressedCacheName(sha, "zstd", 19));
    const ptmp = tempBeside(packed);
    copyFileSync(zst, ptmp);
    renameSync(ptmp, packed);
    writeFileAtomic(memo, JSON.stringify({ sha256: sha }), { mode: 0o600 });
    return describe(raw, o.platform, version, source, sha, o.cacheDir);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * `reasonix upgrade` keeps the release's upload artifact for this platform in
 * cache/remote/release-<version>/. When it decompresses to this very executable,
 * make it this build's compressed copy (so uploads send the build's zstd -19).
 */
async function adoptKeptArtifact(self: BinaryArtifact, name: string, o: ResolveArtifactOptions): Promise<void> {
  const dir = join(o.cacheDir, `release-${self.version}`);
  const zst = join(dir, `${name}.zst`);
  const sumsPath = join(dir, "SHA256SUMS");
  const packed = join(o.cacheDir, compressedCacheName(self.sha256, "zstd", 19));
  if (existsSync(packed) || !existsSync(zst) || !existsSync(sumsPath)) return;
  await verifyFile(zst, readFileSync(sumsPath, "utf8"), `${name}.zst`);
  const tmp = tempBeside(join(o.cacheDir, `${name}.check`));
  try {
    await unzstd(zst, tmp);
    if ((await sha256File(tmp)) !== self.sha256) return; // not this build: leave it unused
    const ptmp = tempBeside(packed);
    copyFileSync(zst, ptmp);
    renameSync(ptmp, packed);
  } finally {
    rmSync(tmp, { force: true });
  }
}

export async function resolveArtifact(o: ResolveArtifactOptions): Promise<BinaryArtifact> {
  const env = o.env ?? process.env;
  const version = o.version ?? buildInfo().version;
  const name = `reasonix-${o.platform}`;
  if (o.binaryPath) return describe(o.binaryPath, o.platform, version, o.binaryPath, undefined, o.cacheDir);
  if (isCompiledBinary() && platformId() === o.platform && buildInfo().version === version) {
    const self = await describe(process.execPath, o.platform, version, "this executable", undefined, o.cacheDir);
    await adoptKeptArtifact(self, name, o).catch(() => {});
    return self;
  }
  mkdirSync(o.cacheDir, { recursive: true, mode: 0o700 });
  const releaseDir = o.releaseDir ?? env.REASONIX_RELEASE_DIR;
  if (releaseDir) {
    const sumsPath = join(releaseDir, "SHA256SUMS");
    if (!existsSync(sumsPath)) throw new ReasonixError("artifact_unverified", `${sumsPath} is missing; a release directory needs SHA256SUMS`);
    const sums = readFileSync(sumsPath, "utf8");
    const tgz = join(releaseDir, `${name}.tar.gz`);
    const raw = join(releaseDir, name);
    const zst = join(releaseDir, `${name}.zst`);
    if (existsSync(zst) && parseSums(sums).has(`${name}.zst`)) return adoptPrecompressed(zst, sums, name, o, version, zst);
    if (existsSync(raw) && statSync(raw).isFile()) {
      const sha = await verifyFile(raw, sums, name);
      return describe(raw, o.platform, version, raw, sha, o.cacheDir);
    }
    if (existsSync(tgz)) {
      const sha = await verifyFile(tgz, sums, `${name}.tar.gz`);
      const out = join(o.cacheDir, cacheName(sha, `-${o.platform}`));
      if (!existsSync(out)) await extractBinary(tgz, out, phase("extract", o.onProgress));
      return describe(out, o.platform, version, tgz, undefined, o.cacheDir);
    }
    throw new ReasonixError("artifact_missing", `no ${name}.tar.gz or ${name} in ${releaseDir}`, {
      hint: "build one with `npm run build` (dist/) or point REASONIX_RELEASE_DIR at a release download",
    });
  }
  // From the release site: archive + SHA256SUMS, both cached by version.
  const base = o.releaseUrl?.replace(/\/$/, "") ?? releaseBase(version, env);
  const dir = join(o.cacheDir, `release-${version}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tgz = join(dir, `${name}.tar.gz`);
  const sumsPath = join(dir, "SHA256SUMS");
  const zst = join(dir, `${name}.zst`);
  try {
    if (!existsSync(sumsPath)) await downloadFile(`${base}/SHA256SUMS`, sumsPath);
    // A release with the precompressed upload artifact: fetch that instead of the archive.
    if (parseSums(readFileSync(sumsPath, "utf8")).has(`${name}.zst`)) {
      if (!existsSync(zst)) await downloadFile(`${base}/${name}.zst`, zst, phase("download", o.onProgress));
    } else if (!existsSync(tgz)) await downloadFile(`${base}/${name}.tar.gz`, tgz, phase("download", o.onProgress));
  } catch (e) {
    throw new ReasonixError("artifact_download", `cannot fetch the ${o.platform} build of reasonix ${version} from ${base}: ${(e as Error).message}`, {
      hint: "set REASONIX_RELEASE_DIR to a directory with the release files, or use serve_install = \"npm\"",
      cause: e,
    });
  }
  if (existsSync(zst)) {
    try {
      return await adoptPrecompressed(zst, readFileSync(sumsPath, "utf8"), name, o, version, `${base}/${name}.zst`);
    } catch (e) {
      unlinkSync(zst); // never keep a bad download around for the next try
      throw e;
    }
  }
  let sha: string;
  try {
    sha = await verifyFile(tgz, readFileSync(sumsPath, "utf8"), `${name}.tar.gz`);
  } catch (e) {
    unlinkSync(tgz); // never keep a bad download around for the next try
    throw e;
  }
  const out = join(o.cacheDir, cacheName(sha, `-${o.platform}`));
  if (!existsSync(out)) await extractBinary(tgz, out, phase("extract", o.onProgress));
  return describe(out, o.platform, version, `${base}/${name}.tar.gz`, undefined, o.cacheDir);
}

export interface CompressOptions {
  codec: Codec;
  /** zstd level (default 19 with a 128 MiB window) or gzip level (default 9). */
  level?: number;
  cacheDir: string;
  onProgress?: ProgressFn;
}

/** Same stream format as the in-process path (long window 2^27 at level ≥ 10, checksum on). */
async function zstdWithCli(zstd: string, art: BinaryArtifact, level: number, dest: string, onProgress?: ProgressFn): Promise<void> {
  const args = zstdCliArgs(zstd, level);
  const fd = openSync(dest, "w", 0o600);
  try {
    const proc = Bun.spawn(args, { stdin: "pipe", stdout: fd, stderr: "pipe" });
    const stderr = new Response(proc.stderr).text();
    await pipeline(createReadStream(art.path, { highWaterMark: 1 << 20 }), progressTap(art.size, phase("compress", onProgress)), async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) {
        proc.stdin.write(chunk);
        await proc.stdin.flush();
      }
      await proc.stdin.end();
    });
    const code = await proc.exited;
    if (code !== 0) throw new ReasonixError("artifact_compress", `zstd failed (exit ${code}): ${(await stderr).trim()}`);
  } finally {
    closeSync(fd);
  }
}

/**
 * The compressed form of `art`, made once and cached by content hash. zstd at a
 * high level with long-distance matching gets a Bun executable to ~0.37 of its
 * size and still decompresses at hundreds of MB/s on the remote.
 */
export async function compressedArtifact(art: BinaryArtifact, o: CompressOptions): Promise<CompressedArtifact> {
  if (o.codec === "raw") return { codec: "raw", path: art.path, size: art.size };
  const level = o.level ?? (o.codec === "zstd" ? 19 : 9);
  mkdirSync(o.cacheDir, { recursive: true, mode: 0o700 });
  const out = join(o.cacheDir, compressedCacheName(art.sha256, o.codec, level));
  if (existsSync(out)) return { codec: o.codec, path: out, size: statSync(out).size };
  const tmp = tempBeside(out);
  try {
    const zstdCli = o.codec === "zstd" ? Bun.which("zstd") : null;
    if (zstdCli) {
      // The zstd CLI compresses on every core (-T0); in-process zstd uses one,
      // which makes the one-off level-19 pass several times slower.
      await zstdWithCli(zstdCli, art, level, tmp, o.onProgress);
    } else {
      const compressor = await inProcessCompressor(o.codec, level);
      await pipeline(createReadStream(art.path, { highWaterMark: 1 << 20 }), progressTap(art.size, phase("compress", o.onProgress)), compressor, createWriteStream(tmp, { mode: 0o600 }));
    }
    renameSync(tmp, out);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {}
    throw e;
  }
  return { codec: o.codec, path: out, size: statSync(out).size };
}
