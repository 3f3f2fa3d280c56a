/**
 * A cold upload that picks its compression per segment while it sends. The
 * binary goes out in segments of a few MiB, each one self-contained frame of
 * the stream's codec: a zstd frame at the level the controller chose, or a zstd
 * frame of stored (raw) blocks when the link outruns compression (gzip: a
 * member at that level, level 0 for raw). `zstd -d` and `gzip -d` decode
 * concatenated frames as one stream, so the remote's install script is the same
 * whatever the mix, and any prefix it wrote is a prefix of the binary: an upload
 * a lost link cut short resumes at the byte the remote has, with a new stream.
 */
import { closeSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { promisify } from "node:util";
import { cpus } from "node:os";
import zlib from "node:zlib";
import { tempBeside } from "../../core/release/download.ts";
import type { BinaryArtifact } from "./artifact-types.ts";
import { RAW, UploadController, type LevelRun } from "./upload-controller.ts";

/** Raw bytes per segment: small enough to switch often, big enough to compress well (a Bun executable loses ~2 % against one frame). */
export const SEGMENT_BYTES = 4 << 20;
/** Wire bytes the link's buffers (ssh2's 2 MiB, the SSH window, sockets) take before a push says anything about the link. */
const BUFFERED = 4 << 20;

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
const RAW_BLOCK = 128 << 10;

/**
 * `data` as one zstd frame of raw blocks (RFC 8878): no content size, a 128 KiB
 * window (descriptor exponent 7), blocks of at most 128 KiB, the last one flagged.
 */
export function rawZstdFrame(data: Buffer): Buffer {
  const blocks = Math.max(1, Math.ceil(data.length / RAW_BLOCK));
  const out = Buffer.allocUnsafe(6 + blocks * 3 + data.length);
  ZSTD_MAGIC.copy(out, 0);
  out[4] = 0x00; // frame header descriptor: no content size, not single-segment, no checksum, no dictionary
  out[5] = 7 << 3; // window descriptor: 2^(10+7)
  let o = 6;
  for (let i = 0; i < blocks; i++) {
    const part = data.subarray(i * RAW_BLOCK, (i + 1) * RAW_BLOCK);
    const header = (part.length << 3) | (0 << 1) | (i === blocks - 1 ? 1 : 0); // block type 0 = raw
    out.writeUIntLE(header, o, 3);
    part.copy(out, o + 3);
    o += 3 + part.length;
  }
  return out;
}

type ZstdZlib = { zstdCompress(b: Buffer, o: { params: Record<number, number> }, cb: (e: Error | null, r: Buffer) => void): void; constants: Record<string, number> };
const gzip = promisify(zlib.gzip);

/** One segment in the stream's codec at `level` (RAW: stored). */
export async function encodeSegment(codec: "zstd" | "gzip", level: number, data: Buffer): Promise<Buffer> {
  if (codec === "gzip") return gzip(data, { level: level === RAW ? 0 : level });
  if (level === RAW) return rawZstdFrame(data);
  const z = zlib as unknown as ZstdZlib;
  return new Promise((resolve, reject) => z.zstdCompress(data, { params: { [z.constants.ZSTD_c_compressionLevel!]: level } }, (e, r) => (e ? reject(e) : resolve(r))));
}

export interface AdaptiveStream {
  chunks: AsyncIterable<Buffer>;
  /** Raw bytes of the binary handed to the link so far (from the start offset). */
  rawDone(): number;
  /** The levels used, in runs, and the link speed measured. */
  summary(): { levels: LevelRun[]; linkBytesPerSec: number | null };
  abort(): void;
}

export interface AdaptiveOptions {
  controller: UploadController;
  /** Start at this raw byte (resuming). */
  from?: number;
  /**
   * Write the stream here too, when it starts at 0 and no segment goes raw (a copy the next
   * install sends as is). Asked at the end; a name still being worked out (the binary's hash)
   * may come as a promise, and then the copy is written to `cacheTemp` meanwhile.
   */
  cachePath?: (minLevel: number) => string | Promise<string>;
  cacheTemp?: string;
  now?: () => number;
  segmentBytes?: number;
}

interface Job {
  level: number;
  raw: number;
  out: Buffer;
}

export function adaptiveStream(art: Pick<BinaryArtifact, "path" | "size">, o: AdaptiveOptions): AdaptiveStream {
  const ctl = o.controller;
  const now = o.now ?? (() => performance.now());
  const seg = o.segmentBytes ?? SEGMENT_BYTES;
  const from = o.from ?? 0;
  let rawDone = 0;
  let aborted = false;
  const first = o.cachePath && from === 0 ? (o.cacheTemp ?? o.cachePath(0)) : null;
  const tmp = typeof first === "string" ? (o.cacheTemp ?? tempBeside(first)) : null;
  let fd = tmp ? openSync(tmp, "w", 0o600) : -1;
  let minLevel = Infinity;
  const dropCache = () => {
    if (fd < 0) return;
    try {
      closeSync(fd);
    } catch {}
    fd = -1;
    try {
      unlinkSync(tmp!);
    } catch {}
  };

  // Idle cores on this machine since the last segment (system-wide: on loopback the remote's side counts too).
  const cpuTimes = () => cpus().reduce((a, c) => [a[0]! + c.times.idle, a[1]! + c.times.idle + c.times.user + c.times.nice + c.times.sys + c.times.irq], [0, 0]);
  let lastCpu = cpuTimes();
  const idle = (): number | undefined => {
    const t = cpuTimes();
    const [di, dt] = [t[0]! - lastCpu[0]!, t[1]! - lastCpu[1]!];
    lastCpu = t;
    return dt > 0 ? (di / dt) * cpus().length : undefined;
  };

  async function* chunks(): AsyncGenerator<Buffer> {
    const fh = await open(art.path, "r");
    const queue: Promise<Job>[] = [];
    let pos = from;
    const launch = () => {
      if (pos >= art.size || aborted) return;
      const len = Math.min(seg, art.size - pos);
      const at = pos;
      pos += len;
      const level = ctl.next();
      const job = (async (): Promise<Job> => {
        const buf = Buffer.allocUnsafe(len);
        const { bytesRead } = await fh.read(buf, 0, len, at);
        if (bytesRead !== len) throw new Error(`${art.path} changed while it was being uploaded`);
        const t0 = now();
        const out = await encodeSegment(ctl.codec, level, buf);
        ctl.compressed(level, len, out.length, now() - t0);
        return { level, raw: len, out };
      })();
      job.catch(() => {}); // awaited in order below; an abort leaves later ones unawaited
      queue.push(job);
    };
    let wire = 0;
    try {
      // Keep `parallel` segments in the works ahead of the one going out.
      for (let i = 0; i < ctl.parallel; i++) launch();
      while (queue.length && !aborted) {
        const t0 = now();
        const job = await queue.shift()!;
        const starved = now() - t0;
        launch();
        if (fd >= 0) {
          if (job.level === RAW) dropCache();
          else {
            writeSync(fd, job.out);
            minLevel = Math.min(minLevel, job.level);
          }
        }
        rawDone += job.raw;
        const t1 = now();
        yield job.out;
        ctl.sent(job.level, job.raw, job.out.length, now() - t1, starved, wire >= BUFFERED, idle());
        wire += job.out.length;
      }
      if (fd >= 0 && !aborted) {
        closeSync(fd);
        fd = -1;
        const dest = await Promise.resolve(o.cachePath!(minLevel)).catch(() => null);
        if (dest) renameSync(tmp!, dest);
        else unlinkSync(tmp!);
      }
    } finally {
      dropCache();
      await fh.close();
    }
  }

  return {
    chunks: chunks(),
    rawDone: () => rawDone,
    summary: () => ({ levels: ctl.history(), linkBytesPerSec: ctl.linkBytesPerSec() }),
    abort() {
      aborted = true;
      dropCache();
    },
  };
}
