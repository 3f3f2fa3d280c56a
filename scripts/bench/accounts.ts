// Benchmark: the accounts Worker (services/accounts) in local workerd with a
// local D1.
//
// 1. PBKDF2 alone: one client asks the dev-only /v1/dev/pbkdf2 route for
//    20 hashes (100,000 iterations each); wall time and workerd CPU per hash.
// 2. Sign-up: 50 sign-ups (each one PBKDF2 plus D1 writes after the answer),
//    10 at a time; workerd CPU ms per request.
// 3. Login: 50 concurrent clients for 10 s (bounded), each logging in over
//    and over (token mode) as users from a pool; p50/p99 latency, throughput
//    and workerd CPU ms per request.
// 4. Enumeration timing: for sign-up, forgot-password and login, the median
//    of paired differences (a known address minus an unknown one, sent back
//    to back, each after the previous request's after-response work ended)
//    as a ratio to one PBKDF2. Goal: |ratio| ≤ 0.5 — a path that skipped its
//    hash for unknown addresses shows ~1.0. (The functional side, the same
//    work before each answer, is in services/accounts/test/security.test.ts.)
//
// CPU is workerd's user+system time from /proc (includes D1 and HTTP work,
// so it is an upper bound on what Cloudflare bills as Worker CPU). Workers'
// limits: 10 ms CPU per request on the Free plan, 30 s by default on Paid.
//
//   bun scripts/bench/accounts.ts [--clients 50] [--seconds 10] [--pairs 21] [--json]
import { readFileSync } from "node:fs";
import { join } from "node:path";

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const CLIENTS = opt("clients", 50);
const SECONDS = Math.min(opt("seconds", 10), 60);
const PAIRS = Math.max(5, Math.min(opt("pairs", 21), 60));
const POOL = 96; // users; login is limited to 10 per email per 15 min
const root = join(import.meta.dir, "..", "..");

const proc = Bun.spawn([process.execPath, join(root, "services", "accounts", "scripts", "local.ts"), "--port", "0", "--fresh", "--state", join(root, ".bench", "accounts-state"), "--exit-with-parent"], {
  stdout: "pipe",
  stderr: "inherit",
});
const first = (await new Response(proc.stdout).body!.getReader().read()).value;
const info = JSON.parse(new TextDecoder().decode(first).split("\n")[0]!) as { url: string; workerdPid: number | null };
const U = info.url;

const tck = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;
function cpuMs(): number {
  if (!info.workerdPid) return NaN;
  const f = readFileSync(`/proc/${info.workerdPid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / tck; // utime + stime
}

let ipSeq = 0;
let lastError = "";
async function post(path: string, body: unknown): Promise<{ status: number; ms: number; json: any }> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${U}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": `2001:db8::b:${(++ipSeq).toString(16)}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
      // Bun reuses pooled sockets that workerd has already closed under load (ECONNRESET).
      keepalive: false,
    });
    const json = await res.json().catch(() => null);
    return { status: res.status, ms: performance.now() - t0, json };
  } catch (e) {
    lastError = e instanceof Error ? e.message : String(e);
    return { status: 0, ms: performance.now() - t0, json: null };
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};

async function pooled<T>(n: number, width: number, f: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await f(i);
    }
  }));
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Wait (bounded) until no after-response task of an earlier request is still running. */
async function settled(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const w = (await (await fetch(`${U}/v1/dev/work`)).json()) as { afterPending: number };
    if (w.afterPending === 0) return;
    await Bun.sleep(20);
  }
  throw new Error("after-response tasks still running after 600 polls");
}

async function enumerationTiming(stamp: string, pbkdf2Ms: number): Promise<Record<string, { medianMs: number; ratio: number }>> {
  const known = Array.from({ length: PAIRS }, (_, i) => `enum-${stamp}-${i}@example.test`);
  await pooled(PAIRS, 5, (i) => post("/v1/signup", { email: known[i], password: "benchmark password" }));
  await settled();
  // The first unknown login derives the dummy hash once: not a request's steady cost.
  await post("/v1/login", { email: `warm-${stamp}@example.test`, password: "wrong password" });
  const out: Record<string, { medianMs: number; ratio: number }> = {};
  let ghost = 0;
  const paths: [string, (email: string) => object][] = [
    ["/v1/signup", (email) => ({ email, password: "some password" })],
    ["/v1/forgot-password", (email) => ({ email })],
    ["/v1/login", (email) => ({ email, password: "wrong password" })],
  ];
  for (const [path, body] of paths) {
    const diffs: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const one = async (email: string) => {
        await settled();
        return (await post(path, body(email))).ms;
      };
      const unknown = `ghost-${stamp}-${++ghost}@example.test`;
      // Alternate which goes first so a drift in load cancels.
      if (i % 2 === 0) {
        const a = await one(known[i]!);
        diffs.push(a - (await one(unknown)));
      } else {
        const b = await one(unknown);
        diffs.push((await one(known[i]!)) - b);
      }
    }
    const d = median(diffs);
    out[path.slice(4)] = { medianMs: +d.toFixed(1), ratio: +(d / pbkdf2Ms).toFixed(2) };
  }
  return out;
}

try {
  // 1. PBKDF2 alone.
  await post("/v1/dev/pbkdf2", { count: 1 }); // warm-up
  const c0 = cpuMs();
  const p = await post("/v1/dev/pbkdf2", { count: 20 });
  const pbkdf2 = { wallMs: p.ms / 20, cpuMs: (cpuMs() - c0) / 20, iterations: p.json.iterations };

  // 2. Sign-up, and users for the login pool.
  const stamp = Date.now().toString(36);
  const emails = Array.from({ length: POOL }, (_, i) => `bench-${stamp}-${i}@example.test`);
  const c1 = cpuMs();
  const t1 = performance.now();
  const signups = await pooled(POOL, 10, (i) => post("/v1/signup", { email: emails[i], password: "benchmark password" }));
  const signupWall = performance.now() - t1;
  await Bun.sleep(500); // after-response work (user rows, outbox) lands
  const signupCpu = (cpuMs() - c1) / POOL;
  if (signups.some((s) => s.status !== 202)) throw new Error(`sign-up answered ${[...new Set(signups.map((s) => s.status))]} (${lastError})`);
  const { messages: all } = (await (await fetch(`${U}/v1/dev/outbox`)).json()) as { messages: { to: string; body: string }[] };
  const tokens = new Map<string, string>();
  for (const e of emails) {
    let m = all.find((x) => x.to === e);
    for (let i = 0; !m && i < 50; i++) {
      await Bun.sleep(100);
      const r = (await (await fetch(`${U}/v1/dev/outbox?to=${encodeURIComponent(e)}`)).json()) as { messages: { to: string; body: string }[] };
      m = r.messages[0];
    }
    if (!m) throw new Error(`no verification mail for ${e}`);
    tokens.set(e, /#token=([A-Za-z0-9_-]+)/.exec(m.body)![1]!);
  }
  await pooled(POOL, 10, (i) => post("/v1/verify-email", { token: tokens.get(emails[i]!) }));

  // 4. Enumeration timing (run before the login load, which rate-limits the pool's addresses).
  const enumeration = await enumerationTiming(stamp, pbkdf2.wallMs);

  // 3. Login under load.
  const lat: number[] = [];
  let limited = 0;
  let failed = 0;
  let k = 0;
  const c2 = cpuMs();
  const t2 = performance.now();
  const end = t2 + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const r = await post("/v1/login", { email: emails[k++ % POOL], password: "benchmark password", mode: "token" });
        if (r.status === 200) lat.push(r.ms);
        else if (r.status === 429) limited++;
        else failed++;
      }
    }),
  );
  const wall = (performance.now() - t2) / 1000;
  const loginCpu = (cpuMs() - c2) / (lat.length + limited + failed);

  const result = {
    clients: CLIENTS,
    seconds: Number(wall.toFixed(2)),
    pbkdf2: { iterations: pbkdf2.iterations, wallMsPerHash: +pbkdf2.wallMs.toFixed(1), cpuMsPerHash: +pbkdf2.cpuMs.toFixed(1) },
    signup: { requests: POOL, concurrency: 10, wallMsPerRequest: +(signupWall / POOL).toFixed(1), cpuMsPerRequest: +signupCpu.toFixed(1) },
    enumeration,
    login: { ok: lat.length, rateLimited: limited, failed, perSecond: +(lat.length / wall).toFixed(1), p50Ms: +pct(lat, 50).toFixed(1), p99Ms: +pct(lat, 99).toFixed(1), cpuMsPerRequest: +loginCpu.toFixed(1) },
  };
  if (argv.includes("--json")) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    const l = result.login;
    process.stdout.write(
      [
        `accounts Worker in local workerd + D1, ${CLIENTS} clients for ${result.seconds} s`,
        `PBKDF2-SHA256 ${pbkdf2.iterations}: ${result.pbkdf2.wallMsPerHash} ms wall, ${result.pbkdf2.cpuMsPerHash} ms workerd CPU per hash`,
        `sign-up: ${result.signup.cpuMsPerRequest} ms CPU per request (${POOL} sign-ups, 10 at a time, ${result.signup.wallMsPerRequest} ms wall each on average)`,
        `login: ${l.ok} ok (${l.perSecond}/s), p50 ${l.p50Ms} ms, p99 ${l.p99Ms} ms, ${l.cpuMsPerRequest} ms CPU per request${l.rateLimited ? `, ${l.rateLimited} rate-limited` : ""}${l.failed ? `, ${l.failed} FAILED (last network error: ${lastError || "none"})` : ""}`,
        ...Object.entries(result.enumeration).map(([path, e]) => `enumeration ${path}: known minus unknown, median of ${PAIRS} pairs ${e.medianMs} ms = ${e.ratio} of one PBKDF2 (goal |ratio| ≤ 0.5)${Math.abs(e.ratio) > 0.5 ? " — MISSED" : ""}`),
        `CPU-bound capacity: ~${(1000 / l.cpuMsPerRequest).toFixed(0)} logins/s per core of workerd; with ${CLIENTS} clients the latency is mostly queueing (${CLIENTS} / throughput ≈ ${((CLIENTS / l.perSecond) * 1000).toFixed(0)} ms)`,
        `Workers CPU limits: 10 ms/request (Free), 30,000 ms default (Paid): sign-up and login fit the Paid default, not the Free plan`,
        "",
      ].join("\n"),
    );
  }
  if (failed > 0 || Object.values(enumeration).some((e) => !(Math.abs(e.ratio) <= 0.5))) process.exitCode = 1;
} finally {
  proc.kill("SIGTERM");
  await proc.exited;
}
