// Remote supervisor benchmarks, each a ratio against OpenSSH measured in the
// same run on loopback (real sshd from the test harness, our compiled binary
// as the client):
//   connect-to-ready (serve already running) ÷ `ssh host true`      goal ≤ 0.5
//   first-install upload bytes ÷ binary size                        goal ≤ 0.4
//   first-install upload time ÷ `scp` of the raw binary             goal ≤ 1.0
//   tunnel throughput ÷ `ssh -L`                                    goal ≥ 0.9
//   seconds from link restored to tunnel serving (netns + veth)     goal ≤ 2 s
//   cold connect with a cached artifact, loopback                   goal ≤ 10 s
//   link speed an install measures, loopback ÷ 20 Mbit/s relay      goal ≥ 2
//   cold connect with a cached artifact ÷ scp of it, 20 Mbit/s      goal ≤ 1.1
//   cold connect with no artifact (streamed) ÷ scp raw, loopback   goal ≤ 1.2
//   … ÷ scp raw at 20 Mbit/s (relay; and netns + tc htb as root)    goal ≤ 0.6
//   seconds from kill -9 of the serve to the tunnel answering again goal ≤ 3 s
//   ms local-proxy adds to a model request's time to first byte     goal ≤ 5 ms
//     (remote loopback -> ssh -R -> local provider proxy -> provider, minus direct)
//   dead-link detection, median of --cuts silent drops at 20 Mbit/s goal ≤ 6 s    (deadlink)
//   false alarms over --saturate-s s of saturated upload            goal 0        (deadlink)
//   tunnel request during an outage -> the "link down" page         goal ≤ 2.5 s  (deadlink)
//   link back -> local-proxy provider forward answering            goal ≤ 2 s    (fwdback)
// Run as root: bun scripts/bench/remote.ts [--runs N] [--mb N] [--cuts N] [--saturate-s N] [--fwd-cut-s N]
//   [--only install,connect,tunnel,link,cold,heal,proxy,deadlink,fwdback] [--skip-netns]
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTestBinary } from "../../remote/testing/test-build.ts";
import { createNetnsLink, netnsUnavailable } from "../../remote/testing/netns.ts";
import { freeLoopbackPort, sshdUnavailable, startSshd, type SshdHandle } from "../../remote/testing/sshd-harness.ts";
import { makeLocalEnv, type LocalEnv } from "../../remote/tests/supervisor-support.ts";
import { benchDeadLink, benchForwardBack } from "./remote-link.ts";
import { benchCold, benchColdHtb } from "./remote-cold.ts";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const RUNS = opt("--runs", 5);
// --only install,connect,tunnel,link  (default: all)
const onlyIdx = args.indexOf("--only");
const only = new Set(onlyIdx >= 0 ? args[onlyIdx + 1]!.split(",") : ["install", "connect", "tunnel", "link", "cold", "heal", "proxy", "deadlink", "fwdback"]);
const MB = opt("--mb", 256);
const CUTS = opt("--cuts", 10);
const SATURATE_S = opt("--saturate-s", 60);
const FWD_CUT_S = opt("--fwd-cut-s", 20);

// Exit through process.exit on a signal so the harness's exit hooks remove the test user and sshd.
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => process.exit(130));

const why = sshdUnavailable();
if (why) {
  console.error(`remote benchmark skipped: ${why}`);
  process.exit(0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results: { name: string; value: number; goal: string; ok: boolean; detail: string }[] = [];
const report = (name: string, value: number, goal: string, ok: boolean, detail: string) => {
  results.push({ name, value, goal, ok, detail });
  console.log(`${ok ? "ok  " : "MISS"} ${name.padEnd(40)} ${value.toFixed(3).padStart(8)}  (goal ${goal})  ${detail}`);
};

const build = await buildTestBinary();
const BIN = build.binary;

function sshArgs(s: SshdHandle, kh: string): string[] {
  return ["-i", s.clientKey, "-p", String(s.port), "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=accept-new", "-o", `UserKnownHostsFile=${kh}`, "-o", "IdentitiesOnly=yes", "-F", "/dev/null"];
}

/** Start `reasonix remote connect box --json` (compiled) and resolve at its ready event. */
function connectProc(env: LocalEnv, extra: string[] = []): { child: ChildProcess; ready: Promise<{ ms: number; e: any }>; events: any[] } {
  const t0 = performance.now();
  const child = spawn(BIN, ["remote", "connect", "box", "--json", "--accept-new", ...extra], { env: env.env, cwd: env.dir, stdio: ["ignore", "pipe", "pipe"] });
  const events: any[] = [];
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const ready = new Promise<{ ms: number; e: any }>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const e = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        events.push(e);
        if (e.event === "ready") resolve({ ms: performance.now() - t0, e });
      }
    });
    child.on("exit", (c) => reject(new Error(`connect exited ${c}: ${err}`)));
  });
  return { child, ready, events };
}

const stopProc = async (c: ChildProcess) => {
  if (c.exitCode !== null) return;
  const done = new Promise((r) => c.once("exit", r));
  c.kill("SIGINT");
  await done;
};

/** kill -9 of the serve under a live connect: seconds until the same URL answers again (two kills: a third in 60 s is a crash loop). */
async function benchHeal(env: LocalEnv): Promise<void> {
  const c = connectProc(env);
  const { e } = await c.ready;
  let pid = e.pid as number;
  const times: number[] = [];
  for (let i = 0; i < 2; i++) {
    const mark = c.events.length;
    process.kill(pid, "SIGKILL");
    const t0 = performance.now();
    while (true) {
      const ok = await fetch(`http://127.0.0.1:${e.local_port}/healthz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
      if (ok) break;
      if (performance.now() - t0 > 60_000) throw new Error("the serve did not come back within 60 s");
      await Bun.sleep(20);
    }
    times.push((performance.now() - t0) / 1000);
    pid = c.events.slice(mark).find((x) => x.event === "serve_restarted")?.pid ?? pid;
  }
  await stopProc(c.child);
  report("kill -9 -> tunnel answering again (s)", median(times), "<= 3", median(times) <= 3, `runs: ${times.map((x) => x.toFixed(2)).join(", ")}`);
}

/**
 * credentials = "local-proxy": time to first byte of a streamed model request made on
 * the remote's loopback through the -R forward and the local provider proxy, against
 * the same request sent straight to the provider (what a key on the remote does).
 */
async function benchProxy(s: SshdHandle, kh: string): Promise<void> {
  const { connectToHarness } = await import("../../remote/tests/ssh-cli-helpers.ts");
  const { ProviderLink } = await import("../../remote/supervisor/provider-link.ts");
  const { PROXY_SECRET_HEADER } = await import("../../core/providers/proxy.ts");
  // A provider that answers at once with the first SSE event and then ends the stream.
  const up = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      await req.text();
      return new Response('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n', { headers: { "content-type": "text/event-stream" } });
    },
  });
  const conn = await connectToHarness(s, kh);
  const link = new ProviderLink({ entries: [{ name: "up", kind: "openai", base_url: `http://127.0.0.1:${up.port}/v1`, model: "m", api_key_env: "K" }], deps: { secret: () => "sk-bench" } });
  try {
    const { port } = await link.attach(conn.client);
    const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] });
    const ttfb = async (url: string, headers: Record<string, string>) => {
      const t0 = performance.now();
      const res = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
      const reader = res.body!.getReader();
      await reader.read();
      const ms = performance.now() - t0;
      await reader.cancel().catch(() => {});
      return ms;
    };
    const direct = () => ttfb(`http://127.0.0.1:${up.port}/v1/chat/completions`, { authorization: "Bearer sk-bench" });
    const proxied = () => ttfb(`http://127.0.0.1:${port}/p/up/chat/completions`, { [PROXY_SECRET_HEADER]: link.secret });
    const n = Math.max(20, RUNS * 10);
    for (let i = 0; i < 5; i++) await direct(), await proxied(); // warm-up
    const d: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < n; i++) {
      d.push(await direct());
      p.push(await proxied());
    }
    const added = median(p) - median(d);
    report("local-proxy added time to first byte (ms)", added, "<= 5", added <= 5, `median direct ${median(d).toFixed(2)} ms, via ssh -R + proxy ${median(p).toFixed(2)} ms, ${n} requests each`);
  } finally {
    await link.stop();
    conn.close();
    await up.stop(true);
  }
}

const sshd = await startSshd();
let t = 0;
const dir = mkdtempSync(join(tmpdir(), "rx-bench-remote-"));
const kh = join(dir, "known_hosts");
try {
  sshd.runAsUser("mkdir -p ~/bench");
  // A "remote service" for the throughput test: sends MB MiB to whoever connects (own process).
  const blastPort = await freeLoopbackPort();
  const blaster = spawn(process.execPath, [
    "-e",
    `const b=Buffer.alloc(1<<20,97);require("net").createServer(s=>{let n=${MB};const w=()=>{while(n>0){n--;if(!s.write(b))return s.once("drain",w)}s.end()};w();s.on("error",()=>{})}).listen(${blastPort},"127.0.0.1",()=>console.log("up"))`,
  ], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((r) => blaster.stdout!.once("data", r));
  const lPort = await freeLoopbackPort();
  const env = makeLocalEnv(sshd, {
    releaseDir: build.releaseDir,
    workspace: "~/bench",
    extraToml: ["[[remote.hosts.forwards]]", 'type = "local"', `bind = "127.0.0.1:${lPort}"`, `target = "127.0.0.1:${blastPort}"`].join("\n"),
  });
  if (only.has("install")) delete env.env.REASONIX_REMOTE_ZSTD_LEVEL; // benchmark the default (19, long window)

  // ---- first install: bytes and time vs scp --------------------------------
  if (only.has("install")) {
  const { resolveArtifact, compressedArtifact } = await import("../../remote/bootstrap/artifact.ts");
  const cacheDir = join(env.env.REASONIX_HOME!, "cache", "remote");
  const art = await resolveArtifact({ platform: build.platform, binaryPath: BIN, cacheDir });
  t = performance.now();
  const packed = await compressedArtifact(art, { codec: "zstd", cacheDir });
  console.log(`(one-off, cached per version) zstd -19 --long of the ${(art.size / 2 ** 20).toFixed(1)} MiB binary: ${((performance.now() - t) / 1000).toFixed(1)} s -> ${(packed.size / 2 ** 20).toFixed(1)} MiB`);
  const installs: number[] = [];
  const scps: number[] = [];
  let sent = 0;
  for (let i = 0; i < Math.max(3, Math.min(RUNS, 5)); i++) {
    // Stop our serve by its pid file (not pkill -f: that would match this very shell).
    sshd.runAsUser("for f in ~/.reasonix/remote/serve-*.pid; do [ -f \"$f\" ] && kill \"$(cat \"$f\")\"; done; sleep 0.5; rm -rf ~/.reasonix/remote/bin ~/.reasonix/remote/serve-*");
    rmSync(join(env.env.REASONIX_HOME!, "remote", "serve-cache"), { recursive: true, force: true });
    const c = connectProc(env);
    await c.ready;
    const inst = c.events.find((e) => e.event === "installed");
    installs.push(inst.ms);
    sent = inst.bytes;
    await stopProc(c.child);
    t = performance.now();
    const r = spawnSync("scp", ["-q", ...sshArgs(sshd, kh).map((a) => (a === "-p" ? "-P" : a)), BIN, `${sshd.user}@127.0.0.1:/tmp/rx-bench-scp-${process.pid}`]);
    if (r.status !== 0) throw new Error(`scp failed: ${r.stderr}`);
    scps.push(performance.now() - t);
  }
  sshd.runAsUser(`rm -f /tmp/rx-bench-scp-${process.pid}`);
  report("first-install bytes / binary size", sent / art.size, "<= 0.4", sent / art.size <= 0.4, `${(sent / 2 ** 20).toFixed(1)} of ${(art.size / 2 ** 20).toFixed(1)} MiB`);
  report("first-install time / scp raw binary", median(installs) / median(scps), "<= 1.0", median(installs) / median(scps) <= 1.0, `${median(installs).toFixed(0)} ms vs scp ${median(scps).toFixed(0)} ms (upload+decompress+sha256 on the remote)`);
  }

  // ---- connect-to-ready with a running serve vs ssh host true -------------
  if (only.has("connect") || only.has("tunnel")) await stopProc((await (async () => { const c = connectProc(env); await c.ready; return c; })()).child); // make sure a serve runs
  if (only.has("connect")) {
  const readys: number[] = [];
  const sshTrue: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const c = connectProc(env);
    const { ms, e } = await c.ready;
    if (!e.reused) throw new Error("expected a reused serve");
    readys.push(ms);
    await stopProc(c.child);
    t = performance.now();
    const r = spawnSync("ssh", [...sshArgs(sshd, kh), `${sshd.user}@127.0.0.1`, "true"]);
    if (r.status !== 0) throw new Error(`ssh true failed: ${r.stderr}`);
    sshTrue.push(performance.now() - t);
  }
  report("connect-to-ready / ssh host true", median(readys) / median(sshTrue), "<= 0.5", median(readys) / median(sshTrue) <= 0.5, `${median(readys).toFixed(0)} ms (process start to ready) vs ${median(sshTrue).toFixed(0)} ms`);
  }

  // ---- tunnel throughput vs ssh -L -----------------------------------------
  const pull = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      let n = 0;
      const s = connect({ host: "127.0.0.1", port });
      s.on("data", (d: Buffer) => (n += d.length));
      s.on("error", reject);
      s.on("close", () => (n === MB * 2 ** 20 ? resolve((n / 2 ** 20) / ((performance.now() - t0) / 1000)) : reject(new Error(`got ${n} bytes`))));
    });
  if (only.has("tunnel")) {
  const ours: number[] = [];
  const theirs: number[] = [];
  const c = connectProc(env);
  await c.ready;
  const sshLPort = await freeLoopbackPort();
  const sshL = spawn("ssh", [...sshArgs(sshd, kh), "-N", "-L", `127.0.0.1:${sshLPort}:127.0.0.1:${blastPort}`, `${sshd.user}@127.0.0.1`], { stdio: "ignore" });
  for (let i = 0; i < 50; i++) {
    await Bun.sleep(100);
    if (await new Promise((r) => connect(sshLPort, "127.0.0.1").once("connect", function (this: any) { this.destroy(); r(true); }).once("error", () => r(false)))) break;
  }
  for (let i = 0; i < Math.max(3, Math.min(RUNS, 5)); i++) {
    ours.push(await pull(lPort));
    theirs.push(await pull(sshLPort));
  }
  sshL.kill();
  await stopProc(c.child);
  report("tunnel throughput / ssh -L", median(ours) / median(theirs), ">= 0.9", median(ours) / median(theirs) >= 0.9, `${median(ours).toFixed(0)} MiB/s vs ${median(theirs).toFixed(0)} MiB/s (${MB} MiB per run)`);
  }
  const coldCtx = { bin: BIN, platform: build.platform, runs: RUNS, skipNetns: args.includes("--skip-netns"), sshArgs, report, median };
  if (only.has("cold")) await benchCold(coldCtx, sshd, dir);
  if (only.has("cold")) await benchColdHtb(coldCtx, dir);
  if (only.has("heal")) await benchHeal(env);
  if (only.has("proxy")) await benchProxy(sshd, kh);
  blaster.kill();
  env.cleanup();

  // ---- link restored -> tunnel serving (netns) ------------------------------
  const noNs = !only.has("link") ? "not selected" : args.includes("--skip-netns") ? "skipped by flag" : netnsUnavailable();
  if (noNs) console.log(`skip link-restore benchmark: ${noNs}`);
  else {
    const link = createNetnsLink();
    const nsd = await startSshd({ netns: link.ns, listenAddress: link.nsAddr });
    try {
      nsd.runAsUser("mkdir -p ~/ns");
      const nenv = makeLocalEnv(nsd, { releaseDir: build.releaseDir, workspace: "~/ns", host: link.nsAddr, keepaliveMs: 1000 });
      const nc = connectProc(nenv);
      const { e } = await nc.ready;
      const times: number[] = [];
      for (let i = 0; i < Math.min(RUNS, 3); i++) {
        const mark = nc.events.length;
        link.cut();
        while (!nc.events.slice(mark).some((x) => x.event === "disconnected")) await Bun.sleep(50);
        await Bun.sleep(3000);
        link.restore();
        const t0 = performance.now();
        while (true) {
          const ok = await fetch(`http://127.0.0.1:${e.local_port}/healthz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
          if (ok) break;
          if (performance.now() - t0 > 60_000) throw new Error("tunnel did not come back within 60 s");
          await Bun.sleep(20);
        }
        times.push((performance.now() - t0) / 1000);
      }
      await stopProc(nc.child);
      nenv.cleanup();
      report("link restored -> tunnel serving (s)", median(times), "<= 2", median(times) <= 2, `runs: ${times.map((x) => x.toFixed(2)).join(", ")}`);
    } finally {
      await nsd.stop();
      link.destroy();
    }
  }
  // ---- dead-link detection, false alarms, page; provider forward after a cut (netns) ----
  const noNs2 = args.includes("--skip-netns") ? "skipped by flag" : netnsUnavailable();
  const linkCtx = { releaseDir: build.releaseDir, connectProc, stopProc, report, median };
  if (only.has("deadlink")) {
    if (noNs2) console.log(`skip dead-link benchmark: ${noNs2}`);
    else await benchDeadLink(linkCtx, CUTS, SATURATE_S);
  }
  if (only.has("fwdback")) {
    if (noNs2) console.log(`skip forward-back benchmark: ${noNs2}`);
    else await benchForwardBack(linkCtx, Math.min(RUNS, 3), FWD_CUT_S);
  }
} finally {
  await sshd.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\n${results.filter((r) => r.ok).length}/${results.length} goals met`);
process.exit(0);
