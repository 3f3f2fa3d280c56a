/**
 * Which compression level the next segment of a cold upload gets, decided from
 * what the upload itself measures while it sends the binary (no separate speed
 * probe): how fast the link takes bytes, how fast each level compresses on this
 * machine right now, and how much it shrinks this binary. A segment's
 * throughput is min(compression speed, link speed / ratio); raw (level 0) is
 * the link speed itself. Levels already tried are judged by the throughput
 * they actually reached (which includes CPU the compressor took from the SSH
 * encryption); the others by that model, and a neighbour the model rates close
 * is tried for a run now and then. Levels change by runs of a few segments:
 * the link's buffers (the SSH window, sockets) hold a few MiB, so one segment's
 * timing says little. Pure: no clock, no I/O (tests drive it).
 */

/** Level 0 is a raw segment (stored, not compressed). */
export const RAW = 0;

/** Per-level priors: raw bytes/s of one compression job, and compressed/raw ratio (a Bun executable, 4 MiB frames). */
export const PRIORS: Record<"zstd" | "gzip", Record<number, { speed: number; ratio: number }>> = {
  zstd: {
    1: { speed: 200e6, ratio: 0.5 },
    3: { speed: 150e6, ratio: 0.46 },
    6: { speed: 70e6, ratio: 0.44 },
    9: { speed: 35e6, ratio: 0.42 },
  },
  gzip: {
    1: { speed: 40e6, ratio: 0.52 },
    6: { speed: 15e6, ratio: 0.43 },
  },
};

export interface ControllerOptions {
  codec: "zstd" | "gzip";
  /** Levels to choose from; RAW is always included. */
  ladder?: number[];
  /** The level of the first segments, before anything was measured. */
  start?: number;
  /** Compression jobs run side by side (cores given to it). */
  parallel?: number;
  /** Only this level (REASONIX_REMOTE_ZSTD_LEVEL): measure, never switch. */
  fixed?: number;
}

/** A run of consecutive segments at one level: what the upload reports. */
export interface LevelRun {
  level: number;
  raw: number;
  sent: number;
}

interface Sample {
  raw: number;
  wire: number;
  busy: number;
  starved: number;
}

interface Run extends LevelRun {
  /** Measured segments, latest last (the first of a run mostly times the previous run's buffered bytes). */
  samples: Sample[];
}

/** A run is judged once it measured this many segments and wire bytes. */
const JUDGE_SEGMENTS = 2;
const JUDGE_WIRE = 3 << 20;
/**
 * ... and this much sending time: on a fast link two segments take a few milliseconds, which
 * the scheduler's noise (and the other side's work, on the same CPUs over loopback) swamps.
 */
const JUDGE_MS = 80;
/** Switch back to a level measured better only for a clear gain: measurements are noisy. */
const HYSTERESIS = 1.1;
/**
 * A level's measured throughput is trusted for this many segments and this much sending time,
 * then re-judged (the link may have changed). Both: on a fast link 16 segments pass in a
 * fraction of a second, too soon for the link to have changed, and trying a worse level
 * again only costs time there.
 */
const FRESH = 16;
const FRESH_MS = 3000;
/** Idle CPU (in cores) a fast link needs before a heavier level is tried on it. */
const SPARE_CORES = 0.5;
/** Wire bytes/s from which an SSH link's encryption competes with compression for the CPU. */
const FAST_LINK = 16e6;

export class UploadController {
  readonly codec: "zstd" | "gzip";
  readonly ladder: number[];
  readonly parallel: number;
  private readonly fixed: number | undefined;
  private current: number;
  /** Raw bytes/s reached per level, and at which segment count it was measured. */
  private seen = new Map<number, { goodput: number; at: number; atMs: number }>();
  private speeds = new Map<number, number>();
  private ratios = new Map<number, number>();
  private segments = 0;
  /** Sending time so far (ms: pushing segments and waiting for them). */
  private sendingMs = 0;
  /** Wire bytes/s while the link was the bottleneck (the sender had the next segment ready). */
  private link: number | undefined;
  private readonly runs: Run[] = [];
  /** Idle CPU on this machine while sending (cores, EWMA), when the caller measures it. */
  private idle: number | undefined;

  constructor(o: ControllerOptions) {
    this.codec = o.codec;
    this.fixed = o.fixed;
    const priors = Object.keys(PRIORS[o.codec]).map(Number);
    this.ladder = [...new Set([RAW, ...(o.ladder ?? priors)])].sort((a, b) => a - b);
    this.parallel = Math.max(1, o.parallel ?? 2);
    // The lightest compression first: cheap on a fast link, already half the bytes on a slow one.
    this.current = o.fixed ?? o.start ?? this.ladder[1] ?? RAW;
  }

  get level(): number {
    return this.current;
  }

  /** The link speed measured so far (wire bytes/s), or null. */
  linkBytesPerSec(): number | null {
    return this.link ?? null;
  }

  /** Runs of segments per level, in the order sent. */
  history(): LevelRun[] {
    return this.runs.map(({ level, raw, sent }) => ({ level, raw, sent }));
  }

  /** A compression job finished: `raw` bytes in, `wire` out, in `ms` of wall time. */
  compressed(level: number, raw: number, wire: number, ms: number): void {
    if (level === RAW || raw <= 0) return;
    this.ratios.set(level, mix(this.ratios.get(level), wire / raw));
    if (ms > 0) this.speeds.set(level, mix(this.speeds.get(level), raw / (ms / 1000)));
  }

  /**
   * A segment went out: `raw` bytes of the binary as `wire` bytes, after `starvedMs`
   * waiting for it to be ready and `busyMs` pushing it into the link. `measured` is
   * false while the link's buffers were still filling (the push then says nothing).
   */
  sent(level: number, raw: number, wire: number, busyMs: number, starvedMs: number, measured = true, idleCores?: number): void {
    if (idleCores !== undefined) this.idle = mix(this.idle, idleCores);
    this.segments++;
    this.sendingMs += Math.max(0, busyMs) + Math.max(0, starvedMs);
    let run = this.runs.at(-1);
    const first = run?.level !== level;
    if (first) this.runs.push((run = { level, raw: 0, sent: 0, samples: [] }));
    run!.raw += raw;
    run!.sent += wire;
    if (!first && measured) run!.samples.push({ raw, wire, busy: busyMs, starved: starvedMs });
  }

  /** The level for the next segment (decided ahead of sending: compression runs in front of the link). */
  next(): number {
    if (this.fixed !== undefined) return this.current;
    const run = this.runs.at(-1);
    if (!run || run.level !== this.current) return this.current;
    // The sender waits for compressed segments while no core is idle: compressing takes the CPU
    // the link itself needs (its encryption; on loopback the remote's side too). One lighter
    // step at once, without waiting for a judgement a noisy fast link makes slow to come by.
    const last = run.samples.at(-1);
    if (this.current !== RAW && last && this.idle !== undefined && this.idle < SPARE_CORES && last.starved > last.busy) {
      // What it reached is remembered, so it is not tried again soon.
      this.remember(this.current, run.samples);
      return (this.current = this.ladder[this.ladder.indexOf(this.current) - 1]!);
    }
    // Until the current level's run has been measured, keep it. Judged on its latest segments:
    // the link may have changed during a long run.
    if (run.samples.length < JUDGE_SEGMENTS) return this.current;
    const recent: Sample[] = [];
    let w = 0;
    let t = 0;
    for (let k = run.samples.length - 1; k >= 0 && (recent.length < JUDGE_SEGMENTS || w < JUDGE_WIRE || t < JUDGE_MS); k--) {
      recent.push(run.samples[k]!);
      w += run.samples[k]!.wire;
      t += run.samples[k]!.busy + run.samples[k]!.starved;
    }
    if (w < JUDGE_WIRE || t < JUDGE_MS) return this.current;
    const goodput = this.remember(this.current, recent);
    if (goodput === undefined) return this.current;
    const sum = (f: (x: Sample) => number, xs = recent) => xs.reduce((a, x) => a + f(x), 0);
    const ms = sum((x) => x.busy + x.starved);
    // The link's speed from the segments it was the bottleneck for (the next one was ready in time).
    const linkBound = recent.filter((x) => x.busy > 0 && x.starved < x.busy * 0.25);
    if (linkBound.length) this.link = sum((x) => x.wire, linkBound) / (sum((x) => x.busy, linkBound) / 1000);
    const link = this.link ?? 0;
    const i = this.ladder.indexOf(this.current);
    const lighter = this.ladder[i - 1];
    const heavier = this.ladder[i + 1];
    // Waiting for segments: heavily, or somewhat while the model agrees that this level
    // cannot keep up with the link (a link that buffers takes bursts a compressor misses).
    const waited = sum((x) => x.starved) / ms;
    const starved = waited > 0.3 || (waited > 0.1 && this.current !== RAW && this.estimate(this.current, "speed") * this.parallel < link / this.estimate(this.current, "ratio"));
    let to: number | undefined;
    if (link > FAST_LINK) {
      // A fast link: its encryption competes with compression for the CPU, which no model
      // of speeds captures, so neighbours are compared by the throughput they reached
      // (tried again when that measurement is old).
      // A heavier level is only worth trying (or going back to) with a core to spare: without
      // one, compressing takes it from the encryption (and on loopback from the remote's side too).
      const spare = this.idle === undefined || this.idle >= SPARE_CORES;
      const better = [lighter, heavier].filter((n) => n !== undefined && (n !== heavier || spare) && this.fresh(n) && this.seen.get(n)!.goodput > goodput * HYSTERESIS);
      to = better[0] ?? [lighter, heavier].find((n) => n !== undefined && !this.fresh(n) && (n !== heavier || (spare && this.model(n) > goodput)));
    } else if (starved && lighter !== undefined) {
      // The compressor cannot keep up (or the link got faster): the lightest compression,
      // from where a slow link climbs back in one step.
      to = this.current > this.ladder[1]! ? this.ladder[1] : lighter;
    } else if (!starved) {
      // The link sets the pace: the heaviest level that still keeps up with it, with room to spare.
      to = this.ladder.filter((l) => l > this.current && this.estimate(l, "speed") * this.parallel >= (link / this.estimate(l, "ratio")) * 1.5).at(-1);
    }
    if (to === undefined) return this.current;
    const best = to;
    return (this.current = best);
  }

  /** Raw bytes/s `samples` reached (over their pushing and waiting time), recorded as what `level` reaches now; undefined without time. */
  private remember(level: number, samples: Sample[]): number | undefined {
    const ms = samples.reduce((a, x) => a + x.busy + x.starved, 0);
    if (ms <= 0) return undefined;
    const goodput = samples.reduce((a, x) => a + x.raw, 0) / (ms / 1000);
    this.seen.set(level, { goodput, at: this.segments, atMs: this.sendingMs });
    return goodput;
  }

  /** min(compression speed × jobs, link / ratio); raw = the link. */
  model(level: number): number {
    const link = this.link ?? 0;
    if (level === RAW) return link;
    return Math.min(this.estimate(level, "speed") * this.parallel, link / this.estimate(level, "ratio"));
  }

  private fresh(level: number): boolean {
    const s = this.seen.get(level);
    return !!s && (s.at >= this.segments - FRESH || s.atMs >= this.sendingMs - FRESH_MS);
  }

  /** Measured, else the prior scaled by how this machine and binary compare with the priors at the levels measured. */
  private estimate(level: number, what: "speed" | "ratio"): number {
    const own = (what === "speed" ? this.speeds : this.ratios).get(level);
    if (own !== undefined) return own;
    const f: number[] = [];
    for (const [l, v] of what === "speed" ? this.speeds : this.ratios) f.push(v / this.prior(l)[what]);
    return this.prior(level)[what] * (f.length ? f.reduce((a, b) => a + b, 0) / f.length : 1);
  }

  private prior(level: number): { speed: number; ratio: number } {
    const table = PRIORS[this.codec];
    const known = Object.keys(table).map(Number).sort((a, b) => a - b);
    return table[[...known].reverse().find((k) => k <= level) ?? known[0]!]!;
  }
}

const mix = (old: number | undefined, x: number) => (old === undefined ? x : (old + x) / 2);
