// Fetch, verify and unpack a release archive: shared by `reasonix upgrade` and
// the remote installer, so both trust exactly the same checks.
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { ReasonixError } from "../errors.ts";

export const DEFAULT_RELEASES = "https://github.com/reasonix/reasonix/releases";

/** Where archives live: $REASONIX_DOWNLOAD_URL, else the release page (pinned or latest). */
export function releaseBase(version?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.REASONIX_DOWNLOAD_URL) return env.REASONIX_DOWNLOAD_URL.replace(/\/+$/, "");
  return version ? `${DEFAULT_RELEASES}/download/v${version.replace(/^v/, "")}` : `${DEFAULT_RELEASES}/latest/download`;
}

export async function fetchBytes(url: string): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow" });
  } catch (e) {
    throw new ReasonixError("download_failed", `download failed: ${url} (${(e as Error).message})`);
  }
  if (!res.ok) throw new ReasonixError("download_failed", `download failed: ${url} (HTTP ${res.status})`);
  return new Uint8Array(await res.arrayBuffer());
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

export const sha256Hex = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");

export function verifyChecksum(name: string, data: Uint8Array, sums: Map<string, string>): void {
  const expected = sums.get(name);
  if (!expected) throw new ReasonixError("checksum_missing", `SHA256SUMS has no entry for ${name}`);
  const actual = sha256Hex(data);
  if (actual !== expected) {
    throw new ReasonixError("checksum_mismatch", `checksum mismatch for ${name} (expected ${expected}, got ${actual})`);
  }
}

/** Extract one regular file from a .tar.gz held in memory. */
export function extractFromTarGz(archive: Uint8Array, wanted: string): Uint8Array {
  const tar = gunzipSync(archive);
  let off = 0;
  while (off + 512 <= tar.length) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const field = (a: number, b: number) => new TextDecoder().decode(header.subarray(a, b)).replace(/\0.*$/s, "");
    const name = (field(345, 500) ? `${field(345, 500)}/` : "") + field(0, 100);
    const size = parseInt(field(124, 136).trim() || "0", 8);
    const type = String.fromCharCode(header[156]!);
    const body = off + 512;
    if ((type === "0" || type === "\0") && name.replace(/^\.\//, "") === wanted) return tar.slice(body, body + size);
    off = body + Math.ceil(size / 512) * 512;
  }
  throw new ReasonixError("archive_invalid", `archive does not contain ${wanted}`);
}

export interface ReleaseAsset {
  version: string;
  binary: Uint8Array;
}

/** Download the target's archive (.tar.gz, or .zip on Windows) and SHA256SUMS from `base`, verify, unpack the binary. */
export async function downloadRelease(base: string, target: string): Promise<Uint8Array> {
  const windows = target.startsWith("reasonix-windows");
  const name = `${target}.${windows ? "zip" : "tar.gz"}`;
  const [archive, sumsText] = await Promise.all([fetchBytes(`${base}/${name}`), fetchBytes(`${base}/SHA256SUMS`)]);
  verifyChecksum(name, archive, parseSums(new TextDecoder().decode(sumsText)));
  if (!windows) return extractFromTarGz(archive, "reasonix");
  const { unzipSync } = await import("fflate");
  const exe = unzipSync(archive, { filter: (f) => f.name === "reasonix.exe" })["reasonix.exe"];
  if (!exe) throw new ReasonixError("archive_invalid", `${name} does not contain reasonix.exe`);
  return exe;
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
