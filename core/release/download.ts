// Fetch, verify and unpack release files: shared by `reasonix upgrade` and the
// remote installer, so both trust exactly the same checks. Everything streams
// to disk; a ~110 MiB binary is never held in memory.
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ReasonixError } from "../errors.ts";

export const DEFAULT_RELEASES = "https://github.com/reasonix/reasonix/releases";

/** Called with bytes done and the total (0 when unknown), at most every 200 ms and at the end. */
export type TransferProgress = (done: number, total: number) => void;

/** Where archives live: $REASONIX_DOWNLOAD_URL, else the release page (pinned or latest). */
export function releaseBase(version?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.REASONIX_DOWNLOAD_URL) return env.REASONIX_DOWNLOAD_URL.replace(/\/+$/, "");
  return version ? `${DEFAULT_RELEASES}/download/v${version.replace(/^v/, "")}` : `${DEFAULT_RELEASES}/latest/download`;
}

/** A sibling temp name, so the final rename stays on one filesystem (atomic). */
export const tempBeside = (path: string): string => `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;

/** A pass-through stream that reports progress. */
export function progressTap(total: number, onProgress?: TransferProgress): Transform {
  let done = 0;
  let last = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      done += chunk.length;
      const now = Date.now();
      if (onProgress && (now - last > 200 || done === total)) {
        last = now;
        onProgress(done, total);
      }
      cb(null, chunk);
    },
  });
}

async function get(url: string): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow" });
  } catch (e) {
    throw new ReasonixError("download_failed", `download failed: ${url} (${(e as Error).message})`);
  }
  if (!res.ok || !res.body) throw new ReasonixError("download_failed", `download failed: ${url} (HTTP ${res.status})`);
  return res;
}

export async function fetchText(url: string): Promise<string> {
  return (await get(url)).text();
}

/** Download `url` to `dest` through a temp file: a failed download leaves nothing at `dest`. */
export async function downloadFile(url: string, dest: string, onProgress?: TransferProgress): Promise<void> {
  const res = await get(url);
  const total = Number(res.headers.get("content-length") ?? 0);
  const tmp = tempBeside(dest);
  const { Readable } = await import("node:stream");
  try {
    await pipeline(Readable.fromWeb(res.body as never), progressTap(total, onProgress), createWriteStream(tmp));
    renameSync(tmp, dest);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Parse SHA256SUMS (sha256sum format: "<hex>  name", or "<hex> *name" in binary mode) into name → hex. */
export function parseSums(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(.+?)\s*$/.exec(line);
    if (m) out.set(m[2]!.replace(/^\.\//, ""), m[1]!.toLowerCase());
  }
  return out;
}

export async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), h);
  return h.digest("hex");
}

/** Check `file` against the SHA256SUMS entry for `name`; returns its hash. */
export async function verifyFile(file: string, sumsText: string, name: string): Promise<string> {
  const want = parseSums(sumsText).get(name);
  if (!want) throw new ReasonixError("checksum_missing", `${name} is not listed in SHA256SUMS; refusing to use an unverified binary`);
  const got = await sha256File(file);
  if (got !== want) throw new ReasonixError("checksum_mismatch", `checksum mismatch for ${name}: SHA-256 ${got} does not match SHA256SUMS (${want})`);
  return got;
}

const isBinaryName = (name: string) => name === "reasonix" || name === "reasonix.exe";

/** Pull the `reasonix` executable out of a release .tar.gz (streamed) or .zip into `dest` (mode 0755). */
export async function extractBinary(archive: string, dest: string, onProgress?: TransferProgress): Promise<void> {
  const tmp = tempBeside(dest);
  try {
    if (archive.endsWith(".zip")) {
      const { unzipSync } = await import("fflate");
      const files = unzipSync(readFileSync(archive), { filter: (f) => isBinaryName(basename(f.name)) });
      const data = Object.values(files)[0];
      if (!data) throw new ReasonixError("archive_invalid", `${archive} has no reasonix executable inside`);
      writeFileSync(tmp, data, { mode: 0o755 });
    } else {
      const tar = await import("tar-stream");
      const { createGunzip } = await import("node:zlib");
      const ex = tar.extract();
      let found = false;
      const done = new Promise<void>((resolve, reject) => {
        ex.on("entry", (header, stream, next) => {
          if (!found && header.type === "file" && isBinaryName(basename(header.name))) {
            found = true;
            pipeline(stream, progressTap(header.size ?? 0, onProgress), createWriteStream(tmp, { mode: 0o755 })).then(() => next(), reject);
          } else {
            stream.on("end", () => next());
            stream.resume();
          }
        });
        ex.on("finish", resolve);
        ex.on("error", reject);
      });
      await pipeline(createReadStream(archive), createGunzip(), ex);
      await done;
      if (!found) throw new ReasonixError("archive_invalid", `${archive} has no reasonix executable inside`);
    }
    renameSync(tmp, dest);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Download the target's archive (.tar.gz, or .zip on Windows) and SHA256SUMS
 * from `base`, verify, and unpack the binary to `dest`. Scratch files live in
 * a temp dir beside `dest` and are removed whatever happens.
 */
export async function downloadRelease(base: string, target: string, dest: string): Promise<void> {
  const name = `${target}.${target.startsWith("reasonix-windows") ? "zip" : "tar.gz"}`;
  const scratch = mkdtempSync(join(dirname(dest), ".reasonix-download-"));
  try {
    const archive = join(scratch, name);
    const [sums] = await Promise.all([fetchText(`${base}/SHA256SUMS`), downloadFile(`${base}/${name}`, archive)]);
    await verifyFile(archive, sums, name);
    await extractBinary(archive, dest);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Compare dotted versions numerically: -1, 0, 1. */
export function compareVersions(a: string, b: string): number {
  const pa = a.replace(/^v/, "").split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.replace(/^v/, "").split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}
