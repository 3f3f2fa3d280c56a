// Benchmark: `reasonix acp` against `reasonix run --output-format stream-json`,
// same binary, same scripted LLM on loopback.
//
// 1. First-chunk latency of a fresh process's first turn (both front ends
//    pay the same cold provider path): ACP, from writing `session/prompt` to
//    reading the first `agent_message_chunk`; run, from its `session` line
//    (written just before the turn is submitted) to its first `text_delta`
//    line. Medians over N rounds; the ratio ACP ÷ run has a goal of ≤ 1.1.
//    ACP's second turn in the same process is reported too (warm).
// 2. Memory of an idle `reasonix acp` (after initialize and session/new):
//    VmRSS from /proc, goal ≤ 80 MiB.
// 3. Per-message input overhead: a 2 MB prompt (an editor's big selection)
//    through the batch guard in front of the SDK ÷ decoding and JSON-parsing
//    the same bytes (what reading any message costs). In process; medians of
//    15. Goal ≤ 1× (the guard costs less than reading the message at all).
//
//   bun scripts/bench/acp.ts [--turns 15] [--source | --binary PATH] [--json]
//
// By default this host's binary is built first; --binary uses one already
// built, --source runs `bun cli/main.ts`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { guardBatches } from "../../core/acp/batch-guard.ts";
import { makeAcpEnv } from "../../core/acp/tests/helpers.ts";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { builtDist } from "../lib/built-dist.ts";

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const TURNS = Math.max(3, Math.min(opt("turns", 15), 100));
const root = join(import.meta.dir, "..", "..");
const binAt = argv.indexOf("--binary");
const cmd = argv.includes("--source")
  ? [process.execPath, join(root, "cli", "main.ts")]
  : [binAt >= 0 ? argv[binAt + 1]! : (await builtDist()).binary];

const reply = { text: "Here is the answer, streamed in a few pieces.", chunkSize: 8 };
const llm = await startScriptedOpenAI([]);
const env = makeAcpEnv(llm.url);
const procEnv = { ...process.env, REASONIX_HOME: env.home, NO_COLOR: "1" } as Record<string, string>;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// --- 3. the batch guard on a 2 MB prompt vs decoding + parsing it ---
const bigLine = new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [{ type: "text", text: "x".repeat(2_000_000) }] } })}\n`);
const bigChunks = Array.from({ length: Math.ceil(bigLine.length / 65536) }, (_, i) => bigLine.subarray(i * 65536, (i + 1) * 65536));
const guardMs: number[] = [];
const parseMs: number[] = [];
for (let i = 0; i < 16; i++) {
  const src = new ReadableStream<Uint8Array>({ start: (c) => (bigChunks.forEach((b) => c.enqueue(b)), c.close()) });
  let t = performance.now();
  for await (const _ of guardBatches(src));
  if (i > 0) guardMs.push(performance.now() - t);
  t = performance.now();
  JSON.parse(new TextDecoder().decode(bigLine));
  if (i > 0) parseMs.push(performance.now() - t);
}

/** Lines of a child's stdout, each with the time it was read. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const waiting: ((l: { line: string; at: number }) => void)[] = [];
  const queued: { line: string; at: number }[] = [];
  void (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const c of stream) {
      const at = performance.now();
      buf += dec.decode(c, { stream: true });
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const item = { line: buf.slice(0, i), at };
        buf = buf.slice(i + 1);
        const w = waiting.shift();
        if (w) w(item);
        else queued.push(item);
      }
    }
  })();
  return {
    next: (): Promise<{ line: string; at: number }> => {
      const q = queued.shift();
      return q ? Promise.resolve(q) : new Promise((r) => waiting.push(r));
    },
    /** Read until a line matches (bounded by a timeout). */
    async until(pred: (l: string) => boolean, ms = 30_000): Promise<{ line: string; at: number }> {
      const deadline = performance.now() + ms;
      for (;;) {
        const left = deadline - performance.now();
        if (left <= 0) throw new Error("timed out waiting for a line");
        const l = await Promise.race([this.next(), Bun.sleep(left).then(() => null)]);
        if (!l) throw new Error("timed out waiting for a line");
        if (pred(l.line)) return l;
      }
    },
  };
}

// --- ACP: a fresh process per round; its first turn (cold, like a run) and a second one (warm) ---
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const isAnswer = (l: string, n: number) => {
  const f = JSON.parse(l);
  return f.id === n && f.method === undefined;
};
const acpCold: number[] = [];
const acpWarm: number[] = [];
let idleRss = 0;
for (let t = 0; t < TURNS; t++) {
  const acp = Bun.spawn([...cmd, "acp"], { cwd: env.workspace, env: procEnv, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const out = lineReader(acp.stdout);
  let id = 0;
  const send = (method: string, params: unknown) => {
    acp.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params })}\n`);
    acp.stdin.flush();
    return id;
  };
  const answer = async (n: number) => JSON.parse((await out.until((l) => isAnswer(l, n))).line);
  await answer(send("initialize", { protocolVersion: 1, clientCapabilities: {} }));
  const sessionId = (await answer(send("session/new", { cwd: env.workspace, mcpServers: [] }))).result.sessionId as string;
  if (t === 0) {
    await Bun.sleep(1000);
    idleRss = rssMiB(acp.pid);
  }
  for (const into of [acpCold, acpWarm]) {
    llm.push(reply);
    const t0 = performance.now();
    const n = send("session/prompt", { sessionId, prompt: [{ type: "text", text: `turn ${t}` }] });
    const first = await out.until((l) => l.includes('"agent_message_chunk"'));
    into.push(first.at - t0);
    await answer(n);
  }
  acp.stdin.end();
  await acp.exited;
}

// --- run --output-format stream-json ---
const runMs: number[] = [];
for (let t = 0; t < TURNS; t++) {
  llm.push(reply);
  const p = Bun.spawn([...cmd, "run", "--output-format", "stream-json", `turn ${t}`], { cwd: env.workspace, env: procEnv, stdout: "pipe", stderr: "ignore" });
  const lines = lineReader(p.stdout);
  const session = await lines.until((l) => l.includes('"type":"session"'));
  const first = await lines.until((l) => l.includes('"type":"text_delta"'));
  runMs.push(first.at - session.at);
  await p.exited;
}

await llm.close();
env.cleanup();

const a = median(acpCold);
const r = median(runMs);
const result = {
  turns: TURNS,
  binary: cmd.join(" "),
  acpFirstChunkMs: Math.round(a * 100) / 100,
  acpWarmFirstChunkMs: Math.round(median(acpWarm) * 100) / 100,
  runFirstDeltaMs: Math.round(r * 100) / 100,
  ratio: Math.round((a / r) * 100) / 100,
  ratioGoal: 1.1,
  idleRssMiB: Math.round(idleRss * 10) / 10,
  idleRssGoalMiB: 80,
  bigPromptGuardMs: Math.round(median(guardMs) * 100) / 100,
  bigPromptParseMs: Math.round(median(parseMs) * 100) / 100,
  bigPromptRatio: Math.round((median(guardMs) / median(parseMs)) * 100) / 100,
  bigPromptRatioGoal: 1,
};
if (argv.includes("--json")) console.log(JSON.stringify(result));
else {
  console.log(`first chunk of a fresh process's first turn, median of ${TURNS}: acp ${result.acpFirstChunkMs} ms, run stream-json ${result.runFirstDeltaMs} ms → ratio ${result.ratio} (goal ≤ 1.1)`);
  console.log(`acp, second turn in the same process: ${result.acpWarmFirstChunkMs} ms`);
  console.log(`idle reasonix acp: ${result.idleRssMiB} MiB RSS (goal ≤ 80 MiB)`);
  console.log(`2 MB prompt through the batch guard: ${result.bigPromptGuardMs} ms vs decoding + parsing it ${result.bigPromptParseMs} ms → ratio ${result.bigPromptRatio} (goal ≤ 1)`);
}
