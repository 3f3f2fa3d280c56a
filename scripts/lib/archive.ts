// Deterministic release archives: fixed mtimes, owners and modes, so the same
// binary always yields the same .tar.gz / .zip bytes (and SHA256SUMS).
import { gzipSync } from "node:zlib";
import { zipSync } from "fflate";
import tar from "tar-stream";

export interface ArchiveEntry {
  name: string;
  data: Uint8Array;
  mode: number;
}

export async function tarGz(entries: ArchiveEntry[], mtime: Date): Promise<Uint8Array> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on("data", (c: unknown) => chunks.push(c as Buffer));
    pack.on("end", () => resolve());
    pack.on("error", reject);
  });
  for (const e of entries) {
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name: e.name, mode: e.mode, mtime, uid: 0, gid: 0, uname: "", gname: "" }, Buffer.from(e.data), (err) => (err ? reject(err) : resolve())),
    );
  }
  pack.finalize();
  await done;
  // Node's gzip header carries mtime 0 and a fixed OS byte, so output is stable.
  return gzipSync(Buffer.concat(chunks), { level: 9 });
}

// The zip format cannot store times before 1980.
const ZIP_EPOCH = Date.UTC(1980, 0, 1, 12);

export function zip(entries: ArchiveEntry[], when: Date): Uint8Array {
  const mtime = new Date(Math.max(when.getTime(), ZIP_EPOCH));
  const files: Record<string, [Uint8Array, { mtime: Date; level: 9; attrs: number }]> = {};
  for (const e of entries) files[e.name] = [e.data, { mtime, level: 9, attrs: (e.mode & 0xffff) << 16 }];
  return zipSync(files);
}
