// Benchmark: live-event latency of the web UI transport, and idle memory of `reasonix serve`.
//
// 1. Latency: a server in this process runs the real engine against the
//    scripted OpenAI server; headless chromium (playwright-core) holds a
//    WebSocket to /api/ws. For every envelope we take the time the hub hands
//    it to the sockets (engine emit) and the time the page's onmessage sees it,
//    both on the epoch-based high-resolution clock (performance.timeOrigin +
//    performance.now()). Two loads: "turns" (real streamed turns, bursts of
//    text deltas) and "paced" (one synthetic engine event every 5 ms).
//    Reference in the same run: a bare Bun.serve WebSocket pushing the same
//    paced messages to the same browser. Goal: median ≤ 5 ms.
// 2. Idle RSS: `reasonix serve` (this host's binary compiled fresh by
//    scripts/build.ts --single, and from source) after startup plus one page load, settled for 2 s; reference: a
//    bare Bun.serve process. Goal: ≤ 120 MiB.
//
// 3. The web UI: first-load bytes and paint, a 20,000-token markdown answer
//    (main-thread time per token, first vs last 1,000), emit → DOM updated.
//
//   bun scripts/bench/serve.ts [--turns 5] [--paced 1000] [--no-binary]
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { engineFactoryFromConfig } from "../../core/serve/engine.ts";
import { startServer } from "../../core/serve/server.ts";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const TURNS = opt("turns", 5);
const PACED = opt("paced", 1000);
const CHROMIUM = "/usr/bin/chromium";
const root = resolve(import.meta.dir, "..", "..");
const now = () => performance.timeOrigin + performance.now();
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]! : NaN;
};
const f = (n: number) => n.toFixed(2);

if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} not found: the latency benchmark needs Debian's chromium`);
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "rx-bench-serve-"));
const home = join(dir, "home");
const workspace = join(dir, "ws");
mkdirSync(home, { recursive: true, mode: 0o700 });
mkdirSync(workspace);
const TOKEN = "bench-token-0123456789abcdefghijkl";
const longText = "The quick brown fox jumps over the lazy dog. ".repeat(40);
const llm = await startScriptedOpenAI(Array.from({ length: 2 * TURNS }, () => ({ text: longText, chunkSize: 8 })));
// Real providers stream a token or two per network chunk, tens of ms apart; the
// scripted server replays a whole answer at once. This proxy re-paces its SSE
// events (one per PACE_MS) so "streamed turns" look like a live model, while
// "burst" turns go straight to the scripted server as a worst case.
const PACE_MS = 2;
const pacer = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 60,
  async fetch(req) {
    const u = new URL(req.url);
    const up = await fetch(`${llm.origin}${u.pathname}${u.search}`, { method: req.method, headers: req.headers, body: req.method === "GET" ? undefined : await req.text() });
    if (!(up.headers.get("content-type") ?? "").includes("text/event-stream")) return up;
    const text = await up.text();
    const events = text.split("\n\n").filter((e) => e.trim() !== "");
    const enc = new TextEncoder();
    return new Response(
      new ReadableStream({
        async start(c) {
          for (const e of events) {
            c.enqueue(enc.encode(`${e}\n\n`));
            await Bun.sleep(PACE_MS);
          }
          c.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  },
});
const pacedUrl = `http://127.0.0.1:${pacer.port}${new URL(llm.url).pathname}`;
writeFileSync(
  join(home, "config.toml"),
  `default_model = "paced"\n[[providers]]\nname = "paced"\nkind = "openai"\nbase_url = "${pacedUrl}"\nmodel = "m"\napi_key_env = "BENCH_KEY"\n` +
    `[[providers]]\nname = "burst"\nkind = "openai"\nbase_url = "${llm.url}"\nmodel = "m"\napi_key_env = "BENCH_KEY"\n`,
);
writeFileSync(join(home, ".env"), "BENCH_KEY=x\n", { mode: 0o600 });

const { chromium } = await import("playwright-core");
const udd = mkdtempSync(join(tmpdir(), "rx-bench-udd-"));
const ctx = await chromium.launchPersistentContext(udd, {
  executablePath: CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = ctx.pages()[0] ?? (await ctx.newPage());

/** Open a WebSocket from the page that records (seq → receipt time). */
async function browserSocket(url: string): Promise<void> {
  await page.evaluate(
    (u) =>
      new Promise<void>((res, rej) => {
        const w = window as any;
        w.__recv = [] as [number, number][];
        const ws = new WebSocket(u);
        ws.onmessage = (m) => {
          const t = performance.timeOrigin + performance.now();
          // A frame carries one envelope or a burst of them.
          for (const x of String(m.data).matchAll(/"seq":(\d+)/g)) w.__recv.push([Number(x[1]), t]);
        };
        ws.onopen = () => res();
        ws.onerror = () => rej(new Error("ws failed"));
        w.__ws = ws;
      }),
    url,
  );
}
const received = async (): Promise<Map<number, number>> => new Map(await page.evaluate(() => (window as any).__recv as [number, number][]));

// ---- 1a. reference: bare Bun WebSocket, paced -------------------------------------------------
const refSent = new Map<number, number>();
const ref = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req, srv) {
    if (srv.upgrade(req)) return undefined;
    return new Response("<!doctype html><title>ref</title>", { headers: { "content-type": "text/html" } });
  },
  websocket: { open(ws) { (globalThis as any).__refWs = ws; }, message() {} },
});
await page.goto(`http://127.0.0.1:${ref.port}/`);
await browserSocket(`ws://127.0.0.1:${ref.port}/`);
for (let i = 1; i <= PACED; i++) {
  const ws = (globalThis as any).__refWs;
  refSent.set(i, now());
  ws.send(JSON.stringify({ seq: i, sessionId: "ref", event: { type: "text_delta", text: "abcdefgh" } }));
  await Bun.sleep(5);
}
await Bun.sleep(200);
const refRecv = await received();
const refLat = [...refSent].filter(([s]) => refRecv.has(s)).map(([s, t]) => refRecv.get(s)! - t);
ref.stop(true);

// ---- 1b. reasonix serve: real turns and paced engine events -----------------------------------
const server = await startServer({
  host: "127.0.0.1",
  port: 0,
  auth: { mode: "token", token: TOKEN },
  workspace,
  version: "bench",
  defaultModel: "paced",
  home,
  engineFactory: await engineFactoryFromConfig(home),
});
const sent = new Map<number, number>();
// Attached first, so it runs just before the WebSocket sink for every envelope.
server.hub.attach({ send: (_json, seq) => void sent.set(seq, now()) });
await page.goto(`http://${server.addr}/#token=${TOKEN}`);
await page.waitForSelector("#prompt");
if (argv.includes("--no-ui")) await page.goto(`http://${server.addr}/assets/app.css`);
await browserSocket(`ws://${server.addr}/api/ws`);
const base = `http://${server.addr}`;
const H = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
async function runTurns(model: string): Promise<[number, number]> {
  const { id } = (await (await fetch(`${base}/api/sessions`, { method: "POST", headers: H, body: JSON.stringify({ model }) })).json()) as { id: string };
  const from = server.hub.lastSeq;
  for (let t = 0; t < TURNS; t++) {
    await fetch(`${base}/api/sessions/${id}/prompt`, { method: "POST", headers: H, body: JSON.stringify({ prompt: `turn ${t}` }) });
    const end = Date.now() + 30_000;
    while (server.sessions.isBusy(id) && Date.now() < end) await Bun.sleep(10);
    await Bun.sleep(50);
  }
  return [from, server.hub.lastSeq];
}
const [firstTurnSeq, pacedTurnsLast] = await runTurns("paced");
const [burstFrom, burstTo] = await runTurns("burst");
const id = "synthetic";
const turnsLastSeq = server.hub.lastSeq;
for (let i = 0; i < PACED; i++) {
  server.hub.emit(id, { type: "text_delta", text: "abcdefgh" });
  await Bun.sleep(5);
}
await Bun.sleep(300);
const recv = await received();
const lat = (from: number, to: number) => [...sent].filter(([s]) => s > from && s <= to && recv.has(s)).map(([s, t]) => recv.get(s)! - t);
const turnLat = lat(firstTurnSeq, pacedTurnsLast);
const burstLat = lat(burstFrom, burstTo);
const pacedLat = lat(turnsLastSeq, Number.MAX_SAFE_INTEGER);
const uiFigures = await benchUi();
await server.stop();
await ctx.close();
await llm.close();
pacer.stop(true);
rmSync(udd, { recursive: true, force: true });

// ---- 1c. the web UI itself ---------------------------------------------------------------------
// First load (bytes on the wire, first contentful paint), a 20,000-token
// markdown answer streamed into an open session (main-thread time per token
// early vs late, total scripting time), and engine emit → DOM updated.
async function benchUi() {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  // (a) first load: what a browser transfers (gzip as it asks for it) and when it first paints.
  const loads: { bytes: number; fcp: number }[] = [];
  for (let i = 0; i < 5; i++) {
    await page.goto(`${base}/`);
    await page.waitForSelector("#prompt");
    loads.push(
      await page.evaluate(() => {
        const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        const res = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
        const assets = res.filter((r) => r.name.includes("/assets/"));
        const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN;
        return { bytes: nav.encodedBodySize + assets.reduce((n, r) => n + r.encodedBodySize, 0), fcp };
      }),
    );
  }
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: false });
  const newSession = async () => ((await (await fetch(`${base}/api/sessions`, { method: "POST", headers: H, body: "{}" })).json()) as { id: string }).id;
  const openIt = async (sid: string) => {
    await page.goto(`${base}/sessions/${sid}`);
    await page.waitForSelector("#conn.websocket");
    await page.waitForFunction(() => !!document.querySelector("#transcript .empty"));
  };
  const settle = () => page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 30)))));
  const metrics = async () => {
    const m = (await cdp.send("Performance.getMetrics")).metrics as { name: string; value: number }[];
    const get = (n: string) => (m.find((x) => x.name === n)?.value ?? 0) * 1000;
    return { task: get("TaskDuration"), script: get("ScriptDuration") };
  };
  // (b) a 20,000-token answer: paragraphs, lists, tables and code fences, ~5 chars a token.
  const TOKENS = 20_000;
  const SEG = 1000;
  const para = (i: number) =>
    i % 5 === 0 ? `\`\`\`ts\nexport function f${i}(x: number): number {\n  return x * ${i};\n}\n\`\`\`\n\n`
    : i % 5 === 1 ? `- item one of ${i}\n- item two with \`code\`\n- item three\n\n`
    : i % 5 === 2 ? `| a | b |\n| --- | --- |\n| ${i} | ${i * 2} |\n\n`
    : `## Section ${i}\n\nThe quick brown fox jumps over the lazy dog, **again** and again, in paragraph ${i}.\n\n`;
  let doc = "";
  for (let i = 0; doc.split(/(?<=\s)/).length < TOKENS + 10; i++) doc += para(i);
  const tokens = doc.split(/(?<=\s)/).slice(0, TOKENS);
  const sid = await newSession();
  await openIt(sid);
  server.hub.emit(sid, { type: "turn_start", sessionId: sid, turn: 1, prompt: "bench" });
  const perSeg: number[] = [];
  const start = await metrics();
  for (let s0 = 0; s0 < TOKENS; s0 += SEG) {
    await settle();
    const before = await metrics();
    for (let i = s0; i < s0 + SEG; i += 10) {
      for (const t of tokens.slice(i, i + 10)) server.hub.emit(sid, { type: "text_delta", text: t });
      await Bun.sleep(1);
    }
    await settle();
    perSeg.push(((await metrics()).task - before.task) / SEG);
  }
  const end = await metrics();
  server.hub.emit(sid, { type: "assistant", text: tokens.join("") });
  server.hub.emit(sid, { type: "turn_end", turn: 1, reason: "done" });
  // The DevTools domains report every frame to this process: off before timing latency.
  await cdp.send("Network.disable");
  await cdp.send("Performance.disable");
  await cdp.detach();
  // (c) emit → DOM updated, one paced delta every 5 ms, each carrying a marker.
  const sid2 = await newSession();
  await openIt(sid2);
  // Let the browser collect the big page it just left (GC would land in the timings).
  await Bun.sleep(3000);
  await page.evaluate(() => {
    const w = window as any;
    w.__dom = [] as [number, number][];
    let seen = 0;
    new MutationObserver(() => {
      const t = performance.timeOrigin + performance.now();
      const blocks = document.querySelectorAll(".msg.assistant .md-block");
      const text = blocks[blocks.length - 1]?.textContent ?? "";
      for (const m of text.slice(-200).matchAll(/\[(\d+)\]/g)) {
        const n = Number(m[1]);
        if (n > seen) {
          for (let k = seen + 1; k <= n; k++) w.__dom.push([k, t]);
          seen = n;
        }
      }
    }).observe(document.querySelector("#transcript")!, { subtree: true, childList: true, characterData: true });
  });
  server.hub.emit(sid2, { type: "turn_start", sessionId: sid2, turn: 1, prompt: "latency" });
  const emitted = new Map<number, number>();
  for (let n = 1; n <= Math.min(PACED, 500); n++) {
    server.hub.emit(sid2, { type: "text_delta", text: ` [${n}]` });
    emitted.set(n, sent.get(server.hub.lastSeq)!);
    await Bun.sleep(5);
  }
  await Bun.sleep(300);
  const dom = new Map(await page.evaluate(() => (window as any).__dom as [number, number][]));
  const domLat = [...emitted].filter(([n]) => dom.has(n)).map(([n, t]) => dom.get(n)! - t);
  server.hub.emit(sid2, { type: "turn_end", turn: 1, reason: "done" });
  return {
    bytes: median(loads.map((l) => l.bytes)),
    fcp: median(loads.map((l) => l.fcp)),
    firstSeg: perSeg[0]!,
    lastSeg: perSeg[perSeg.length - 1]!,
    scriptMs: end.script - start.script,
    taskMs: end.task - start.task,
    domLat,
  };
}

// ---- 2. idle RSS ----------------------------------------------------------------------------
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}
async function idleRss(cmd: string[], portFile: string, touch: boolean): Promise<number> {
  const p = Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore", env: { ...process.env, REASONIX_HOME: home }, cwd: workspace });
  try {
    const end = Date.now() + 30_000;
    while (!existsSync(portFile) && Date.now() < end && p.exitCode === null) await Bun.sleep(20);
    if (!existsSync(portFile)) throw new Error(`${cmd.join(" ")} did not start`);
    const addr = readFileSync(portFile, "utf8").trim();
    if (touch) {
      for (const path of ["/", "/assets/app.js", "/assets/app.css", "/api/status", "/api/sessions", "/api/models"]) {
        await fetch(`http://${addr}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.arrayBuffer());
      }
    }
    await Bun.sleep(2000);
    return rssMiB(p.pid);
  } finally {
    p.kill("SIGTERM");
    await p.exited;
    rmSync(portFile, { force: true });
  }
}
const tokenFile = join(dir, "token");
writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
const serveArgs = (pf: string) => ["serve", "--addr", "127.0.0.1:0", "--token-file", tokenFile, "--port-file", pf, "--workspace", workspace];
const refScript = join(dir, "bare.ts");
writeFileSync(refScript, `const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") }); await Bun.write(process.argv[2], "127.0.0.1:" + s.port);`);
const bareRss = await idleRss([process.execPath, refScript, join(dir, "pf-bare")], join(dir, "pf-bare"), false);
const srcRss = await idleRss([process.execPath, join(root, "cli", "main.ts"), ...serveArgs(join(dir, "pf-src"))], join(dir, "pf-src"), true);
// The shipped form: this host's compiled binary, built fresh so it has this tree's serve.
let binRss = NaN;
if (!argv.includes("--no-binary")) {
  const out = join(dir, "dist");
  const b = Bun.spawnSync([process.execPath, join(root, "scripts", "build.ts"), "--single", "--out-dir", out], { cwd: root, stdout: "ignore", stderr: "pipe" });
  const bin = join(out, "reasonix");
  if (b.exitCode === 0 && existsSync(bin)) binRss = await idleRss([bin, ...serveArgs(join(dir, "pf-bin"))], join(dir, "pf-bin"), true);
  else console.error(`could not build the binary (skipping its RSS): ${b.stderr.toString().slice(-400)}`);
}
rmSync(dir, { recursive: true, force: true });

// ---- report ---------------------------------------------------------------------------------
const refMed = median(refLat);
console.log(`event latency, engine emit → browser onmessage over WebSocket (ms)`);
console.log(`  reference bare Bun WebSocket, paced  n=${refLat.length}  median ${f(refMed)}  p95 ${f(pct(refLat, 95))}`);
console.log(`  reasonix serve, paced 5 ms           n=${pacedLat.length}  median ${f(median(pacedLat))}  p95 ${f(pct(pacedLat, 95))}  ratio ${f(median(pacedLat) / refMed)}x`);
console.log(`  reasonix serve, ${TURNS} streamed turns     n=${turnLat.length}  median ${f(median(turnLat))}  p95 ${f(pct(turnLat, 95))}  ratio ${f(median(turnLat) / refMed)}x  (provider events ${PACE_MS} ms apart)`);
console.log(`  reasonix serve, ${TURNS} burst turns        n=${burstLat.length}  median ${f(median(burstLat))}  p95 ${f(pct(burstLat, 95))}  (stress: whole answer in one network read)`);
console.log(`  goal: median ≤ 5 ms (paced and streamed) → ${Math.max(median(pacedLat), median(turnLat)) <= 5 ? "met" : "MISSED"}`);
console.log(`web UI (headless chromium, loopback)`);
console.log(`  first load transferred (html + js + css, gzip)  ${(uiFigures.bytes / 1024).toFixed(1)} KiB   goal ≤ 250 KB → ${uiFigures.bytes <= 250_000 ? "met" : "MISSED"}`);
console.log(`  first contentful paint (median of 5)            ${f(uiFigures.fcp)} ms   goal ≤ 300 ms → ${uiFigures.fcp <= 300 ? "met" : "MISSED"}`);
console.log(`  20,000-token markdown answer: main-thread ms/token, first 1,000 ${uiFigures.firstSeg.toFixed(4)}  last 1,000 ${uiFigures.lastSeg.toFixed(4)}  ratio ${f(uiFigures.lastSeg / uiFigures.firstSeg)}   goal ≤ 1.5 → ${uiFigures.lastSeg / uiFigures.firstSeg <= 1.5 ? "met" : "MISSED"}`);
console.log(`  20,000-token markdown answer: scripting ${f(uiFigures.scriptMs)} ms, main-thread tasks ${f(uiFigures.taskMs)} ms in all`);
console.log(`  engine emit → DOM updated, paced 5 ms  n=${uiFigures.domLat.length}  median ${f(median(uiFigures.domLat))}  p95 ${f(pct(uiFigures.domLat, 95))}   goal median ≤ 5 ms → ${median(uiFigures.domLat) <= 5 ? "met" : "MISSED"}`);
console.log(`idle RSS (MiB)`);
console.log(`  reference bare Bun.serve             ${f(bareRss)}`);
console.log(`  reasonix serve (from source)         ${f(srcRss)}  ratio ${f(srcRss / bareRss)}x`);
if (!Number.isNaN(binRss)) console.log(`  reasonix serve (compiled binary)     ${f(binRss)}  ratio ${f(binRss / bareRss)}x`);
console.log(`  goal: ≤ 120 MiB → ${(Number.isNaN(binRss) ? srcRss : binRss) <= 120 ? "met" : "MISSED"}`);
