// The link parts of scripts/bench/remote.ts (issue 34), on a real link: sshd in a
// network namespace behind a veth pair, htb at 20 Mbit/s where it says so.
//   dead-link detection, median of N silent drops (s)              goal <= 6
//   false alarms while an upload saturates the link for S s         goal 0
//   a tunnel request during an outage answered with the page (s)    goal <= 2.5
//   provider forward (local-proxy) answering after the link is back goal <= 2 s
import type { ChildProcess } from "node:child_process";
import { createNetnsLink } from "../../remote/testing/netns.ts";
import { freeLoopbackPort, startSshd } from "../../remote/testing/sshd-harness.ts";
import { pushFor, spawnInNs, startSinkInNs } from "../../remote/tests/netns-support.ts";
import { makeLocalEnv, type LocalEnv } from "../../remote/tests/supervisor-support.ts";

export interface LinkBenchContext {
  releaseDir: string;
  connectProc(env: LocalEnv): { child: ChildProcess; ready: Promise<{ ms: number; e: any }>; events: any[] };
  stopProc(c: ChildProcess): Promise<void>;
  report(name: string, value: number, goal: string, ok: boolean, detail: string): void;
  median(xs: number[]): number;
}

const waitEvent = async (events: any[], from: number, pred: (e: any) => boolean, ms: number): Promise<any> => {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const hit = events.slice(from).find(pred);
    if (hit) return hit;
    await Bun.sleep(20);
  }
  throw new Error(`no matching event within ${ms} ms: ${JSON.stringify(events.slice(from))}`);
};

/** Default keepalive settings, 20 Mbit/s: `saturateS` s of upload through a -L forward, then `cuts` silent drops. */
export async function benchDeadLink(ctx: LinkBenchContext, cuts: number, saturateS: number): Promise<void> {
  const link = createNetnsLink();
  link.shape(20);
  const nsd = await startSshd({ netns: link.ns, listenAddress: link.nsAddr });
  const sink = await startSinkInNs(link.ns);
  const lPort = await freeLoopbackPort();
  const env = makeLocalEnv(nsd, {
    releaseDir: ctx.releaseDir,
    workspace: "~/ns",
    host: link.nsAddr,
    keepaliveMs: null,
    extraToml: ["[[remote.hosts.forwards]]", 'type = "local"', `bind = "127.0.0.1:${lPort}"`, `target = "127.0.0.1:${sink.port}"`].join("\n"),
  });
  try {
    nsd.runAsUser("mkdir -p ~/ns");
    const c = ctx.connectProc(env);
    const { e } = await c.ready;
    let mark = c.events.length;
    const sent = await pushFor(lPort, saturateS * 1000);
    const alarms = c.events.slice(mark).filter((x) => x.event === "disconnected").length;
    ctx.report("false alarms, saturated 20 Mbit/s upload", alarms, "0", alarms === 0, `${saturateS} s of upload at ${(sent / saturateS / 1e6).toFixed(2)} MB/s accepted`);
    const detect: number[] = [];
    const page: number[] = [];
    for (let i = 0; i < cuts; i++) {
      mark = c.events.length;
      const t0 = performance.now();
      link.drop();
      try {
        const res = await fetch(`http://127.0.0.1:${e.local_port}/healthz`, { signal: AbortSignal.timeout(30_000) }).catch(() => null);
        if (res?.status === 503) page.push((performance.now() - t0) / 1000);
        await waitEvent(c.events, mark, (x) => x.event === "disconnected", 60_000);
        detect.push((performance.now() - t0) / 1000);
      } finally {
        link.undrop();
      }
      await waitEvent(c.events, mark, (x) => x.event === "ready" && x.reconnect, 90_000);
    }
    await ctx.stopProc(c.child);
    ctx.report("dead-link detection, silent drop (s)", ctx.median(detect), "<= 6", ctx.median(detect) <= 6, `${cuts} drops: ${detect.map((x) => x.toFixed(2)).join(", ")}`);
    const pm = page.length ? ctx.median(page) : Infinity;
    ctx.report("tunnel request in an outage -> page (s)", pm, "<= 2.5", page.length === cuts && pm <= 2.5, `${page.length}/${cuts} answered with the page: ${page.map((x) => x.toFixed(2)).join(", ")}`);
  } finally {
    sink.stop();
    await nsd.stop();
    link.destroy();
    env.cleanup();
  }
}

/** Epoch ms at which 127.0.0.1:port inside ns first answers HTTP (polled every 20 ms for up to 60 s; a stale listener that takes the connection but never answers is given 300 ms). */
function firstAnswerInNs(ns: string, port: number): Promise<number> {
  const js = `const net=require("net");const t0=Date.now();const go=()=>{if(Date.now()-t0>60000)process.exit(1);const s=net.connect(${port},"127.0.0.1");let ok=false;const tm=setTimeout(()=>s.destroy(),300);s.on("connect",()=>s.write("GET / HTTP/1.0\\r\\n\\r\\n"));s.on("data",d=>{if(!ok&&String(d).startsWith("HTTP/")){ok=true;console.log(Date.now());process.exit(0)}});s.on("error",()=>{});s.on("close",()=>{clearTimeout(tm);if(!ok)setTimeout(go,20)})};go()`;
  const p = spawnInNs(ns, js);
  let out = "";
  p.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => p.once("exit", (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error("the forward never answered")))));
}

/** credentials = "local-proxy", sshd defaults (no ClientAlive): `runs` cuts of `cutS` s each. */
export async function benchForwardBack(ctx: LinkBenchContext, runs: number, cutS: number): Promise<void> {
  const { writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const link = createNetnsLink();
  const nsd = await startSshd({ netns: link.ns, listenAddress: link.nsAddr });
  const env = makeLocalEnv(nsd, {
    releaseDir: ctx.releaseDir,
    workspace: "~/ns",
    host: link.nsAddr,
    keepaliveMs: null,
    extraToml: ['credentials = "local-proxy"', "", "[[providers]]", 'name = "p"', 'kind = "openai"', 'base_url = "http://127.0.0.1:9/v1"', 'model = "m"', 'api_key_env = "K"'].join("\n"),
  });
  writeFileSync(join(env.env.REASONIX_HOME!, ".env"), "K=sk-bench\n", { mode: 0o600 });
  try {
    nsd.runAsUser("mkdir -p ~/ns");
    const c = ctx.connectProc(env);
    await c.ready;
    const spec = c.events.find((x) => x.event === "forward" && String(x.spec).startsWith("provider proxy"))?.spec ?? "";
    const port = Number(/remote 127\.0\.0\.1:(\d+)/.exec(spec)?.[1]);
    const fromLink: number[] = [];
    const fromReady: number[] = [];
    for (let i = 0; i < runs; i++) {
      const mark = c.events.length;
      link.cut();
      await waitEvent(c.events, mark, (x) => x.event === "disconnected", 60_000);
      await Bun.sleep(Math.max(0, cutS * 1000 - 6000));
      const answered = firstAnswerInNs(link.ns, port);
      link.restore();
      const restoredAt = Date.now();
      await waitEvent(c.events, mark, (x) => x.event === "ready" && x.reconnect, 90_000);
      const readyAt = Date.now();
      const at = await answered;
      fromLink.push((at - restoredAt) / 1000);
      fromReady.push((at - readyAt) / 1000);
    }
    await ctx.stopProc(c.child);
    const m = ctx.median(fromLink);
    ctx.report("link back -> provider forward answering (s)", m, "<= 2", m <= 2, `${runs} cuts of ~${cutS} s: ${fromLink.map((x) => x.toFixed(2)).join(", ")} (after ready: ${fromReady.map((x) => x.toFixed(2)).join(", ")})`);
  } finally {
    await nsd.stop();
    link.destroy();
    env.cleanup();
  }
}
