/**
 * Compress while sending: the binary is read, compressed and handed to the
 * upload chunk by chunk, so a cold install takes max(compress, send) instead of
 * compress + send. The compressed bytes are also written to the local cache
 * (renamed into place only when complete), so the next install of this build to
 * any host sends the cached copy without compressing again.
 */
import { closeSync, createReadStream, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import type { Transform } from "node:stream";
import { ReasonixError } from "../../core/errors.ts";
import { tempBeside } from "../../core/release/download.ts";
import type { BinaryArtifact, Codec } from "./artifact-types.ts";

export interface CompressedStream {
  /** Compressed chunks, in order. */
  chunks: AsyncIterable<Buffer>;
  /** Raw bytes read from the binary so far. */
  rawDone(): number;
  /** Compressed bytes produced so far, and whether that is all of them. */
  produced(): { bytes: number; complete: boolean };
  /** Resolves when the compressor finished cleanly (and the cache copy is in place). */
  finished: Promise<void>;
  /** Stop early (upload failed): kill the compressor, drop the partial cache file. */
  abort(): void;
}

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

/** Start compressing `art` from raw byte `start` with `codec` at `level`; `cachePath` receives a copy when given. */
export async function compressStream(art: BinaryArtifact, codec: Exclude<Codec, "raw">, level: number, cachePath?: string, start = 0): Promise<CompressedStream> {
  let raw = 0;
  let out = 0;
  let complete = false;
  let aborted = false;
  const tmp = cachePath ? tempBeside(cachePath) : null;
  const fd = tmp ? openSync(tmp, "w", 0o600) : -1;
  const cleanupTmp = () => {
    if (fd >= 0) {
      try {
        closeSync(fd);
      } catch {}
    }
    if (tmp) {
      try {
        unlinkSync(tmp);
      } catch {}
    }
  };
  const zstdCli = codec === "zstd" ? Bun.which("zstd") : null;
  let output: AsyncIterable<Buffer>;
  let feed: Promise<void>;
  let kill = () => {};
  if (zstdCli) {
    const proc = Bun.spawn(zstdCliArgs(zstdCli, level), { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    kill = () => proc.kill();
    const stderr = new Response(proc.stderr).text();
    feed = (async () => {
      for await (const chunk of createReadStream(art.path, { highWaterMark: 1 << 20, start }) as AsyncIterable<Buffer>) {
        if (aborted) break;
        raw += chunk.length;
        proc.stdin.write(chunk);
        await proc.stdin.flush();
      }
      await proc.stdin.end();
      const code = await proc.exited;
      if (code !== 0 && !aborted) throw new ReasonixError("artifact_compress", `zstd failed (exit ${code}): ${(await stderr).trim()}`);
    })().catch((e) => {
      // Aborted (the upload ended early): the killed zstd's closed pipe is expected.
      if (!aborted) throw e;
    });
    output = proc.stdout as unknown as AsyncIterable<Buffer>;
  } else {
    const compressor = await inProcessCompressor(codec, level);
    const src = createReadStream(art.path, { highWaterMark: 1 << 20, start });
    src.on("data", (d) => (raw += (d as Buffer).length));
    kill = () => {
      src.destroy();
      compressor.destroy();
    };
    feed = pipeline(src, compressor).catch((e) => {
      if (!aborted) throw e;
    });
    output = compressor as unknown as AsyncIterable<Buffer>;
  }
  let done!: () => void;
  let failed!: (e: unknown) => void;
  const finished = new Promise<void>((res, rej) => {
    done = res;
    failed = rej;
  });
  finished.catch(() => {});
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of output) {
        const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        if (fd >= 0) writeSync(fd, b);
        out += b.length;
        yield b;
      }
      await feed;
      complete = true;
      if (fd >= 0) closeSync(fd);
      if (tmp && cachePath) renameSync(tmp, cachePath);
      done();
    } catch (e) {
      cleanupTmp();
      failed(e);
      throw e;
    }
  }
  return {
    chunks: chunks(),
    rawDone: () => raw,
    produced: () => ({ bytes: out, complete }),
    finished,
    abort() {
      if (aborted) return;
      aborted = true;
      kill();
      cleanupTmp();
    },
  };
}

/** A file as an async sequence of chunks (the cached or precompressed payload). */
export const fileChunks = (path: string, start = 0): AsyncIterable<Buffer> => createReadStream(path, { highWaterMark: 256 * 1024, start }) as AsyncIterable<Buffer>;
