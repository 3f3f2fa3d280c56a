/**
 * Compression shared by the cached artifact (artifact.ts) and the upload: the
 * zstd CLI's arguments and an in-process compressor in the same stream format,
 * and a file read as chunks. (The cold upload's per-segment compression is in
 * adaptive-stream.ts.)
 */
import { createReadStream } from "node:fs";
import type { Transform } from "node:stream";
import type { Codec } from "./artifact-types.ts";

type Zlib = typeof import("node:zlib") & {
  createZstdCompress(o: { params: Record<number, number> }): Transform;
  constants: Record<string, number>;
};

/** zstd CLI arguments for `level`, in the stream format every path shares (long window at level >= 10). */
export const zstdCliArgs = (zstd: string, level: number): string[] => [zstd, "-q", "-c", "-T0", `-${level}`, ...(level > 19 ? ["--ultra"] : []), ...(level >= 10 ? ["--long=27"] : [])];

/** An in-process compressor (one core) for `codec` at `level`, same stream format as the CLI. */
export async function inProcessCompressor(codec: Exclude<Codec, "raw">, level: number): Promise<Transform> {
  const zlib = (await import("node:zlib")) as unknown as Zlib;
  const c = zlib.constants;
  return codec === "zstd"
    ? zlib.createZstdCompress({
        params: {
          [c.ZSTD_c_compressionLevel!]: level,
          [c.ZSTD_c_enableLongDistanceMatching!]: level >= 10 ? 1 : 0,
          // 2^27 is the largest window `zstd -d` accepts without --long.
          [c.ZSTD_c_windowLog!]: level >= 10 ? 27 : 0,
          [c.ZSTD_c_checksumFlag!]: 1,
        },
      })
    : zlib.createGzip({ level });
}

/** A file as an async sequence of chunks (the cached or precompressed payload). */
export const fileChunks = (path: string, start = 0): AsyncIterable<Buffer> => createReadStream(path, { highWaterMark: 256 * 1024, start }) as AsyncIterable<Buffer>;
