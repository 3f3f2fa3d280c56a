// An idle server measured from outside (scripts/bench/fast.ts, peers.ts):
// how long from exec until it answers HTTP, the CPU it spent getting there,
// and its memory once settled — of the whole process tree, since some agents
// start their server through a wrapper process. The reference every run
// measures beside it: a bare Bun.serve compiled like our binary.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface IdleServer {
  /** exec → the first HTTP answer (any status) at the address it printed. */
  readyMs: number;
  /** User + system CPU of the process tree when it first answered. */
  readyCpuMs: number;
  /** Resident memory of the process tree after `settleMs` idle (MiB). */
  rssMiB: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** `pid` and every process below it. */
function tree(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {} // gone meanwhile
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) for (const [p, pp] of parent) if (pp === out[i] && !out.includes(p)) out.push(p);
  return out;
}

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime
  } catch {
    return 0;
  }
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Starts `argv`, waits until its output names an address (`urlFrom`) that
 * answers HTTP, lets it idle `settleMs`, measures, and stops the tree
 * (SIGTERM, then SIGKILL after 5 s). Throws with its output when it exits or
 * stays silent for `timeoutMs`.
 */
export async function measureIdleServer(
  argv: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; urlFrom: (output: string) => string | undefined; settleMs?: number; timeoutMs?: number },
): Promise<IdleServer> {
  const t0 = performance.now();
  const p = Bun.spawn(argv, { cwd: opts.cwd, env: opts.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let output = "";
  const drain = async (s: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder();
    for await (const c of s) output += dec.decode(c, { stream: true });
  };
  const drained = Promise.all([drain(p.stdout), drain(p.stderr)]);
  const deadline = t0 + (opts.timeoutMs ?? 120_000);
  try {
    let readyMs = NaN;
    while (performance.now() < deadline && p.exitCode === null) {
      const url = opts.urlFrom(output);
      const answered = url ? await fetch(url, { signal: AbortSignal.timeout(5000) }).then((r) => r.arrayBuffer().then(() => true), () => false) : false;
      if (answered) {
        readyMs = performance.now() - t0;
        break;
      }
      await Bun.sleep(url ? 5 : 2);
    }
    if (Number.isNaN(readyMs)) throw new Error(`${p.exitCode === null ? "no HTTP answer" : `exited ${p.exitCode}`} before it was ready: ${output.trim().split("\n").slice(-2).join(" / ").slice(0, 300)}`);
    const readyCpuMs = tree(p.pid).reduce((a, q) => a + cpuMs(q), 0);
    await Bun.sleep(opts.settleMs ?? 1000);
    const rss = tree(p.pid).reduce((a, q) => a + rssMiB(q), 0);
    return { readyMs, readyCpuMs, rssMiB: rss };
  } finally {
    const pids = p.exitCode === null ? tree(p.pid) : [];
    for (const q of pids) try { process.kill(q, "SIGTERM"); } catch {}
    const killer = setTimeout(() => { for (const q of pids) try { process.kill(q, "SIGKILL"); } catch {} }, 5000);
    await p.exited;
    clearTimeout(killer);
    await drained.catch(() => {});
  }
}

/** The address in a line like "listening on http://127.0.0.1:4096" (the first http URL printed). */
export const printedUrl = (output: string): string | undefined => /https?:\/\/[\w.:[\]-]+\/?/.exec(output)?.[0];

/**
 * The reference: a bare Bun.serve, compiled by the same Bun with the flags of
 * our release build (scripts/build.ts), printing its address. Returns the binary.
 */
export async function compileBareServer(dir: string): Promise<string> {
  const src = join(dir, "bare-serve.ts");
  writeFileSync(src, 'const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });\nconsole.log(`listening on http://127.0.0.1:${s.port}/`);\n');
  const outfile = join(dir, "bare-serve");
  const r = await Bun.build({ entrypoints: [src], compile: { outfile, autoloadDotenv: false, autoloadBunfig: false }, splitting: true, bytecode: true, format: "esm", minify: true });
  if (!r.success) throw new Error(`bare Bun.serve build failed: ${r.logs.join("; ")}`);
  return outfile;
}
