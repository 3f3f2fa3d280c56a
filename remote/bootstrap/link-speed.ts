/**
 * How fast can we send to this remote, and what does that make the cheapest
 * way to ship the binary? A cold install overlaps compression with the upload,
 * so it takes max(size / compression speed, compressed size / link speed):
 * on a fast link sending raw (or nearly) wins, on a slow one a higher level does.
 */
import type { Client } from "ssh2";
import { randomBytes } from "node:crypto";
import { REMOTE_SH, execChannel } from "../ssh/exec.ts";

/**
 * Bytes per second through an exec channel: send `bytes` of incompressible data
 * to `cat >/dev/null` and time it until the remote closes. Includes one round trip,
 * so it errs low on latent links, which only biases towards compressing more.
 */
export async function measureUpload(client: Client, bytes = 2 * 1024 * 1024, timeoutMs = 15_000): Promise<number | null> {
  let ch: import("ssh2").ClientChannel;
  try {
    ch = await execChannel(client, REMOTE_SH);
  } catch {
    return null;
  }
  const data = randomBytes(bytes);
  return new Promise((resolve) => {
    let t0 = 0;
    const timer = setTimeout(() => {
      ch.close();
      resolve(null);
    }, timeoutMs);
    let out = "";
    ch.on("data", (d: Buffer) => {
      out += d.toString();
      if (!t0 && out.includes("go")) {
        t0 = performance.now();
        ch.end(data);
      }
    });
    ch.on("close", () => {
      clearTimeout(timer);
      const s = (performance.now() - t0) / 1000;
      resolve(t0 && out.includes("got") && s > 0 ? bytes / s : null);
    });
    // The script must be parsed before the payload arrives (dash reads stdin in blocks).
    ch.write("echo go; cat >/dev/null; echo got\n");
  });
}

export interface Plan {
  codec: "zstd" | "gzip" | "raw";
  level: number;
  /** Estimated seconds, for the event. */
  estimate: number;
}

/**
 * Input speed (bytes/s, one busy core pair) and output/input ratio of a Bun
 * executable per zstd level, measured on the 2-core CI machine; faster
 * machines only make compression look better, which the choice tolerates.
 */
const ZSTD: { level: number; speed: number; ratio: number }[] = [
  { level: 1, speed: 250e6, ratio: 0.5 },
  { level: 3, speed: 150e6, ratio: 0.46 },
  { level: 6, speed: 50e6, ratio: 0.43 },
  { level: 9, speed: 22e6, ratio: 0.41 },
  { level: 15, speed: 5e6, ratio: 0.39 },
];

/** The expected compressed/raw ratio, to estimate a streamed upload's size before it is known. */
export function expectedRatio(codec: "zstd" | "gzip", level: number): number {
  if (codec === "gzip") return 0.45;
  return [...ZSTD].reverse().find((z) => z.level <= level)?.ratio ?? 0.5;
}

/** Pick raw or a zstd/gzip level minimising max(compress, send) for `size` bytes at `bw` bytes/s. */
export function planUpload(size: number, bw: number | null, remoteCodecs: { zstd: boolean; gzip: boolean }): Plan {
  const rate = bw ?? 2.5e6; // unknown: assume a 20 Mbit/s link
  let best: Plan = { codec: "raw", level: 0, estimate: size / rate };
  if (remoteCodecs.zstd) {
    for (const z of ZSTD) {
      const t = Math.max(size / z.speed, (size * z.ratio) / rate);
      if (t < best.estimate * 0.95) best = { codec: "zstd", level: z.level, estimate: t };
    }
  } else if (remoteCodecs.gzip) {
    // In-process gzip -6: ~20 MB/s, ~0.45 of the size.
    const t = Math.max(size / 20e6, (size * 0.45) / rate);
    if (t < best.estimate * 0.95) best = { codec: "gzip", level: 6, estimate: t };
  }
  return best;
}
