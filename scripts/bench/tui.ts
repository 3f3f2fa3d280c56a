// Terminal chat benchmark, everything in one run under a real pty (script(1)):
//
// 1. First frame: spawn → the chat's status line on the terminal, next to a
//    bare Bun hello-world compiled the same way (spawn → its output).
//    Goal ≤ 60 ms. Wall time swings with the machine's load, so the CPU time
//    (user+system) each process has used by then is reported too: the chat's
//    from REASONIX_STARTUP_TRACE (cli/startup-trace.ts), the hello-world's
//    from the same call right after its print.
// 2. Stream: an 818-token, 200-line markdown answer streamed token by token
//    (paced like a fast model) → bytes the chat writes to the terminal, next
//    to a raw reference renderer that writes each delta as it comes.
//    Goal ≤ 3×. CPU of the chat process for the stream: goal ≤ 1.0 s.
// 3. Idle: CPU of the chat over 2 s with nothing happening. Goal 0.
// 4. Binary size: ours vs bare Bun hello-world. Goal ≤ bare + 10 MiB.
//
//   bun scripts/bench/tui.ts [--source] [--dump FILE]
//   (--source: run cli/main.ts and skip 1 and 4; --dump: the chat's stream bytes)
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const SOURCE = process.argv.includes("--source");
const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "rx-bench-tui-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

// --- the answer: 200 lines of markdown, ~818 tokens ---------------------------
function answer(): string {
  const lines: string[] = [];
  for (let s = 0; lines.length < 200; s++) {
    lines.push(`## Step ${s + 1}`, "", `Change **module ${s}** so it reads \`cfg.${s}\`.`, "");
    lines.push(`- check item ${s}a`, `- check item ${s}b`, "");
    lines.push("```ts", `const v${s} = load(${s});`, `if (!v${s}) throw err;`, "```", "");
  }
  return lines.slice(0, 200).join("\n");
}
const ANSWER = answer();
const TOKENS = 818;
const pieces: string[] = [];
const per = Math.ceil(ANSWER.length / TOKENS);
for (let i = 0; i < ANSWER.length; i += per) pieces.push(ANSWER.slice(i, i + per));

// --- a paced OpenAI-style SSE server: one piece every PACE ms -----------------
const PACE = 3;
const server = createServer(async (req, res) => {
  for await (const _ of req);
  if (!req.url?.endsWith("/chat/completions")) {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify({ data: [{ id: "bench-model" }] }));
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const frame = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
  for (const p of pieces) {
    frame({ id: "x", object: "chat.completion.chunk", model: "bench-model", choices: [{ index: 0, delta: { content: p }, finish_reason: null }] });
    await Bun.sleep(PACE);
  }
  frame({ id: "x", object: "chat.completion.chunk", model: "bench-model", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  frame({ id: "x", object: "chat.completion.chunk", model: "bench-model", choices: [], usage: { prompt_tokens: 100, completion_tokens: TOKENS, total_tokens: 100 + TOKENS } });
  res.end("data: [DONE]\n\n");
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

const home = join(work, "home");
const ws = join(work, "ws");
mkdirSync(home, { recursive: true });
mkdirSync(ws, { recursive: true });
writeFileSync(join(home, "config.toml"), `default_model = "bench"\n[[providers]]\nname = "bench"\nkind = "openai"\nbase_url = "${url}"\nmodel = "bench-model"\napi_key_env = "BENCH_KEY"\n[sandbox]\nbash = "off"\n`);
writeFileSync(join(home, ".env"), "BENCH_KEY=sk-bench\n", { mode: 0o600 });
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, REASONIX_HOME: home, TERM: "xterm-256color", LANG: "C.UTF-8" };

// --- a program under a pty, its output timestamped ----------------------------
interface PtyRun {
  pid: number;
  bytes(): number;
  text(): string;
  write(s: string): void;
  waitFor(s: string, timeoutMs?: number): Promise<number>;
  quiet(ms: number): Promise<void>;
  kill(): void;
  /** Resolves when script(1) has exited (at most 5 s). */
  exited(): Promise<void>;
}

const sh = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;
function pty(argv: string[], extraEnv: Record<string, string> = {}): PtyRun {
  const cmd = `stty cols 120 rows 40; exec ${argv.map(sh).join(" ")}`;
  const p = Bun.spawn(["script", "-qfec", cmd, "/dev/null"], { cwd: ws, env: { ...env, ...extraEnv }, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const chunks: Buffer[] = [];
  let total = 0;
  let last = performance.now();
  (async () => {
    for await (const c of p.stdout) {
      chunks.push(Buffer.from(c));
      total += c.length;
      last = performance.now();
    }
  })();
  const text = () => Buffer.concat(chunks).toString("utf8");
  return {
    pid: p.pid,
    bytes: () => total,
    text,
    write: (s) => {
      p.stdin.write(s);
      p.stdin.flush();
    },
    waitFor: async (s, timeoutMs = 20_000) => {
      const deadline = performance.now() + timeoutMs;
      while (performance.now() < deadline) {
        if (text().includes(s)) return performance.now();
        await Bun.sleep(1);
      }
      throw new Error(`timed out waiting for ${JSON.stringify(s)}`);
    },
    quiet: async (ms) => {
      const deadline = performance.now() + 20_000;
      while (performance.now() - last < ms && performance.now() < deadline) await Bun.sleep(20);
    },
    kill: () => p.kill(),
    exited: async () => {
      await Promise.race([p.exited, Bun.sleep(5000)]);
    },
  };
}

/** CPU seconds (user+system) of the deepest descendant of `root` (the program under script → shell). */
function cpuOf(root: number): { pid: number; seconds: number } {
  const parent = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  let pid = root;
  for (let i = 0; i < 5; i++) {
    const child = [...parent].find(([, pp]) => pp === pid)?.[0];
    if (!child) break;
    pid = child;
  }
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").slice(readFileSync(`/proc/${pid}/stat`, "utf8").lastIndexOf(")") + 2).split(" ");
  const hz = 100;
  return { pid, seconds: (Number(f[11]) + Number(f[12])) / hz };
}

// --- binaries -----------------------------------------------------------------
let chatArgv = [process.execPath, join(repo, "cli/main.ts"), "chat"];
let hello: string | undefined;
let helloCpu: string | undefined;
let binary: string | undefined;
if (!SOURCE) {
  writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
  // The same, then its CPU time so far, as cli/startup-trace.ts records it.
  writeFileSync(
    join(work, "hello-cpu.ts"),
    'console.log("hello");\nconst u = process.cpuUsage();\nrequire("node:fs").writeFileSync(process.env.REASONIX_STARTUP_TRACE, JSON.stringify({ mark: "hello", ms: performance.now(), cpuMs: (u.user + u.system) / 1000 }) + "\\n");\n',
  );
  hello = join(work, "hello");
  helloCpu = join(work, "hello-cpu");
  for (const [src, outfile] of [["hello.ts", hello], ["hello-cpu.ts", helloCpu]] as const) {
    const r = await Bun.build({ entrypoints: [join(work, src)], compile: { outfile, autoloadDotenv: false, autoloadBunfig: false }, splitting: true, bytecode: true, format: "esm", minify: true });
    if (!r.success) throw new Error(`${src} build failed`);
  }
  const { builtDist } = await import("../lib/built-dist.ts");
  binary = (await builtDist()).binary;
  chatArgv = [binary, "chat"];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// 1. first frame
if (hello) {
  const helloMs: number[] = [];
  const chatMs: number[] = [];
  const readyMs: number[] = [];
  const chatCpu: number[] = [];
  const readyCpu: number[] = [];
  const helloCpuMs: number[] = [];
  const trace = join(work, "startup-trace.jsonl");
  const marks = (): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const l of readFileSync(trace, "utf8").trim().split("\n")) {
      const m = JSON.parse(l) as { mark: string; cpuMs: number };
      out[m.mark] = m.cpuMs;
    }
    rmSync(trace, { force: true });
    return out;
  };
  // Plain `reasonix` (no arguments), as a user starts it.
  const plain = [binary!];
  for (let i = 0; i < 5; i++) {
    let t0 = performance.now();
    let r = pty([hello]);
    helloMs.push((await r.waitFor("hello")) - t0);
    r.kill();
    r = pty([helloCpu!], { REASONIX_STARTUP_TRACE: trace });
    await r.waitFor("hello");
    await r.exited();
    helloCpuMs.push(marks().hello!);
    t0 = performance.now();
    r = pty(plain, { REASONIX_STARTUP_TRACE: trace });
    chatMs.push((await r.waitFor("───")) - t0); // the editor box: the UI is up and takes input
    readyMs.push((await r.waitFor("mode ask")) - t0); // engine loaded, session open
    r.write("\x03\x03");
    await Bun.sleep(100);
    r.kill();
    await r.exited();
    const m = marks();
    chatCpu.push(m["first-frame"]!);
    readyCpu.push(m["engine-ready"]!);
  }
  console.log(`first frame: chat ${median(chatMs).toFixed(0)} ms (engine ready ${median(readyMs).toFixed(0)} ms), bare Bun hello-world ${median(helloMs).toFixed(0)} ms (median of 5, pty via script(1); goal first frame ≤ 60 ms)`);
  console.log(`first frame CPU (user+system, robust to load): chat ${median(chatCpu).toFixed(1)} ms (engine ready ${median(readyCpu).toFixed(1)} ms), bare Bun hello-world ${median(helloCpuMs).toFixed(1)} ms → ${(median(chatCpu) / median(helloCpuMs)).toFixed(1)}× (median of 5)`);
}

// 2. stream: reference renderer
writeFileSync(
  join(work, "ref.ts"),
  `const res = await fetch(${JSON.stringify(url)} + "/chat/completions", { method: "POST", body: "{}" });
let buf = "";
for await (const c of res.body) {
  buf += new TextDecoder().decode(c);
  let i;
  while ((i = buf.indexOf("\\n\\n")) >= 0) {
    const f = buf.slice(0, i); buf = buf.slice(i + 2);
    if (!f.startsWith("data: {")) continue;
    const d = JSON.parse(f.slice(6)).choices[0]?.delta?.content;
    if (d) process.stdout.write(d);
  }
}
process.stdout.write("\\n");
`,
);
const ref = pty([process.execPath, join(work, "ref.ts")]);
await ref.waitFor("if (!v");
await ref.quiet(500);
const refBytes = ref.bytes();
ref.kill();

// 2. stream: the chat
const chat = pty(chatArgv);
await chat.waitFor("mode ask");
await chat.quiet(300);
const before = chat.bytes();
const cpu0 = cpuOf(chat.pid);
const t0 = performance.now();
chat.write("go\r");
// The turn is over when the status line counts its tokens.
await chat.waitFor(`${100 + TOKENS} tok`, 30_000);
await chat.quiet(400);
const streamMs = performance.now() - t0;
const cpu1 = cpuOf(chat.pid);
const chatBytes = chat.bytes() - before;
const dump = process.argv.indexOf("--dump");
if (dump > 0) writeFileSync(process.argv[dump + 1]!, Buffer.from(chat.text(), "utf8").subarray(before));
console.log(`stream (${pieces.length} deltas, ${ANSWER.split("\n").length} lines, ${TOKENS} tokens, ${PACE} ms apart): chat wrote ${chatBytes} bytes, raw reference ${refBytes} bytes → ${(chatBytes / refBytes).toFixed(2)}× (goal ≤ 3×)`);
console.log(`stream CPU: ${(cpu1.seconds - cpu0.seconds).toFixed(2)} s over ${(streamMs / 1000).toFixed(1)} s wall (goal ≤ 1.0 s)`);

// 3. idle
await Bun.sleep(300);
const idle0 = cpuOf(chat.pid).seconds;
await Bun.sleep(2000);
const idle1 = cpuOf(chat.pid).seconds;
console.log(`idle CPU over 2 s: ${(idle1 - idle0).toFixed(2)} s (goal 0; clock ticks are 10 ms)`);
chat.write("\x03\x03");
await Bun.sleep(200);
chat.kill();

// 4. size
if (binary && hello) {
  const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
  const ours = statSync(binary).size;
  const bare = statSync(hello).size;
  console.log(`binary: ${mib(ours)} MiB, bare Bun hello-world ${mib(bare)} MiB → +${mib(ours - bare)} MiB (goal ≤ +10 MiB)`);
}
// Timings are only comparable on a quiet machine: say how busy it was.
console.log(`machine load average: ${loadavg().map((x) => x.toFixed(1)).join(" ")} (${cpus().length} cores)`);
server.close();
process.exit(0);
