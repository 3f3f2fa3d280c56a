// The cold-install parts of scripts/bench/remote.ts: a first install with no
// serve on the remote, against scp of the same bytes to the same sshd.
//   cold connect with a cached artifact, loopback                   goal <= 10 s
//   link speed an install measures, loopback / 20 Mbit/s relay      goal >= 2
//   cold connect with a cached artifact / scp of it, 20 Mbit/s      goal <= 1.1
//   cold connect with no artifact (streamed) / scp raw, loopback    goal <= 1.2
//   ... / scp raw at 20 Mbit/s (relay; and netns + tc htb as root)  goal <= 0.6
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createNetnsLink, netnsUnavailable } from "../../remote/testing/netns.ts";
import { startSshd, type SshdHandle } from "../../remote/testing/sshd-harness.ts";

export interface ColdBenchContext {
  bin: string;
  platform: string;
  runs: number;
  skipNetns: boolean;
  sshArgs(s: SshdHandle, kh: string): string[];
  report(name: string, value: number, goal: string, ok: boolean, detail: string): void;
  median(xs: number[]): number;
}

/** A cold install (serve start included) through ensureServe against `s` dialled at `port`: wall ms and its events. */
async function coldInstall(ctx: ColdBenchContext, s: SshdHandle, port: number, cacheDir: string, work: string) {
  const { ensureServe, stopServe } = await import("../../remote/bootstrap/bootstrap.ts");
  const { connectToHarness } = await import("../../remote/tests/ssh-cli-helpers.ts");
  s.runAsUser("for f in ~/.reasonix/remote/serve-*.pid; do [ -f \"$f\" ] && kill \"$(cat \"$f\")\"; done; sleep 0.3; rm -rf ~/.reasonix/remote/bin");
  const conn = await connectToHarness({ ...s, port } as SshdHandle, join(work, `kh-cold-${s.host}-${port}`));
  const events: any[] = [];
  try {
    const t0 = performance.now();
    const info = await ensureServe(conn.client, { workspace: "~/bench", binaryPath: ctx.bin, cacheDir, restart: true, onEvent: (e) => events.push(e) });
    const ms = performance.now() - t0;
    await stopServe(conn.client, info.slug, info.pid);
    return { ms, src: events.find((e) => e.event === "install_source"), done: events.find((e) => e.event === "installed") };
  } finally {
    conn.close();
  }
}

/** `scp` of `file` to the same sshd (dialled at `port`): wall ms. */
async function scpTo(ctx: ColdBenchContext, s: SshdHandle, port: number, file: string, work: string): Promise<number> {
  const args = ctx.sshArgs(s, join(work, `kh-scp-${s.host}`)).map((a) => (a === "-p" ? "-P" : a === String(s.port) ? String(port) : a));
  const t0 = performance.now();
  const p = Bun.spawn(["scp", "-q", ...args, file, `${s.user}@${s.host}:/tmp/rx-bench-scp-${process.pid}`], { stdout: "ignore", stderr: "pipe" });
  if ((await p.exited) !== 0) throw new Error(`scp failed: ${await new Response(p.stderr).text()}`);
  const ms = performance.now() - t0;
  s.runAsUser(`rm -f /tmp/rx-bench-scp-${process.pid}`);
  return ms;
}

/** The levels a segmented upload used, e.g. "-1:20M raw:99M". */
const levelRuns = (r: { done?: any }) => (r.done?.levels ?? []).map((x: { level: number; raw: number }) => `${x.level === 0 ? "raw" : `-${x.level}`}:${(x.raw / 2 ** 20).toFixed(0)}M`).join(" ");

/** Cold first install (serve start included) through ensureServe, on loopback and on a paced 20 Mbit/s relay. */
export async function benchCold(ctx: ColdBenchContext, s: SshdHandle, work: string): Promise<void> {
  const { resolveArtifact, compressedArtifact } = await import("../../remote/bootstrap/artifact.ts");
  const { startRelay } = await import("../../remote/testing/relay.ts");
  const relay = await startRelay({ targetPort: s.port, rateBytesPerSec: 2_500_000 });
  const cache = join(work, "cold-cache");
  try {
    const art = await resolveArtifact({ platform: ctx.platform, binaryPath: ctx.bin, cacheDir: cache });
    // The "cached artifact" (level 9 here to keep the bench short; the build's is 19).
    const packed = await compressedArtifact(art, { codec: "zstd", level: 9, cacheDir: cache });
    const install = (port: number, cacheDir: string) => coldInstall(ctx, s, port, cacheDir, work);
    const scp = (port: number, file: string) => scpTo(ctx, s, port, file, work);
    const loop = await install(s.port, cache);
    ctx.report("cold connect, cached artifact, loopback (s)", loop.ms / 1000, "<= 10", loop.ms <= 10_000, `source ${loop.src?.source}`);
    // No cached copy: the upload picks each segment's level from what it measures as it goes.
    const loopStreams: number[] = [];
    const loopScps: number[] = [];
    let loopStream: Awaited<ReturnType<typeof install>> | undefined;
    for (let i = 0; i < Math.max(3, Math.min(ctx.runs, 5)); i++) {
      rmSync(join(work, "cold-empty-loop"), { recursive: true, force: true });
      loopStream = await install(s.port, join(work, "cold-empty-loop"));
      loopStreams.push(loopStream.ms);
      loopScps.push(await scp(s.port, ctx.bin));
    }
    const loopRatio = ctx.median(loopStreams) / ctx.median(loopScps);
    ctx.report("cold streamed / scp raw, loopback", loopRatio, "<= 1.2", loopRatio <= 1.2, `${(ctx.median(loopStreams) / 1000).toFixed(2)} s vs scp ${(ctx.median(loopScps) / 1000).toFixed(2)} s of ${(art.size / 2 ** 20).toFixed(1)} MiB (medians of ${loopStreams.length}; last: ${levelRuns(loopStream!)}, link ~${((loopStream!.done?.link_bytes_per_s ?? 0) / 1e6).toFixed(0)} MB/s)`);
    const slow = await install(relay.port, cache);
    const scpPacked = await scp(relay.port, packed.path);
    ctx.report("cold cached / scp of it, 20 Mbit/s", slow.ms / scpPacked, "<= 1.1", slow.ms / scpPacked <= 1.1, `${(slow.ms / 1000).toFixed(1)} s vs scp ${(scpPacked / 1000).toFixed(1)} s (${(packed.size / 2 ** 20).toFixed(1)} MiB)`);
    const stream = await install(relay.port, join(work, "cold-empty"));
    const scpRaw = await scp(relay.port, ctx.bin);
    ctx.report("cold streamed / scp raw, 20 Mbit/s relay", stream.ms / scpRaw, "<= 0.6", stream.ms / scpRaw <= 0.6, `${(stream.ms / 1000).toFixed(1)} s (${levelRuns(stream)}) vs scp ${(scpRaw / 1000).toFixed(1)} s of ${(art.size / 2 ** 20).toFixed(1)} MiB`);
    // The link speed the upload measured while sending, loopback against the paced link.
    const [loopLink, pacedLink] = [loopStream!.done?.link_bytes_per_s ?? 0, stream.done?.link_bytes_per_s ?? 1];
    ctx.report("install's link speed, loopback / 20 Mbit/s", loopLink / pacedLink, ">= 2", loopLink / pacedLink >= 2, `${(loopLink / 1e6).toFixed(1)} MB/s vs ${(pacedLink / 1e6).toFixed(1)} MB/s (measured by the upload)`);
  } finally {
    await relay.close();
  }
}

/**
 * Cold install with no cached copy over a real 20 Mbit/s link: sshd in a network
 * namespace behind a veth pair paced by tc htb, scp of the raw binary to the same sshd.
 */
export async function benchColdHtb(ctx: ColdBenchContext, work: string): Promise<void> {
  const why = ctx.skipNetns ? "skipped by flag" : netnsUnavailable();
  if (why) return void console.log(`SKIPPED cold install at 20 Mbit/s (htb): ${why}`);
  const { shapeLink } = await import("../../remote/testing/shape.ts");
  const link = createNetnsLink();
  let nsd: SshdHandle | undefined;
  try {
    shapeLink(link, 20);
    nsd = await startSshd({ netns: link.ns, listenAddress: link.nsAddr });
    nsd.runAsUser("mkdir -p ~/bench");
    const r = await coldInstall(ctx, nsd, nsd.port, join(work, "cold-htb"), work);
    const scp = await scpTo(ctx, nsd, nsd.port, ctx.bin, work);
    ctx.report("cold streamed / scp raw, 20 Mbit/s htb", r.ms / scp, "<= 0.6", r.ms / scp <= 0.6, `${(r.ms / 1000).toFixed(1)} s (${levelRuns(r)}, link ~${((r.done?.link_bytes_per_s ?? 0) / 1e6).toFixed(2)} MB/s) vs scp ${(scp / 1000).toFixed(1)} s`);
  } finally {
    await nsd?.stop();
    link.destroy();
  }
}
