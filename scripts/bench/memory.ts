// Benchmark: memory recall (core/memory) over 5,000 facts.
//
// 1. Recall: the median time Recaller.recall adds before a turn (the folder
//    check, the cached index, BM25 over every fact, the budget), over varied
//    messages, printed beside the turn's own host overhead: a plain turn
//    through the engine against the scripted server, minus the same streamed
//    HTTP exchange done by a bare fetch client. Goal: ≤ 10 ms median.
//    Then the same through whole engine turns: recall on minus recall off
//    (the trace written with the session included).
//    The first recall of a process is printed on its own, measured in fresh
//    processes: with the folders' on-disk index in place (the usual start),
//    beside the same with no index (read and parse every file, build the
//    index, write it) as the reference of the same run. Goal: ≤ 50 ms with
//    the index. Then a new session in a running process (the index is shared).
// 2. Index memory: heap growth from the index (parsed facts and BM25
//    postings, as loaded from the on-disk index), after a forced GC.
//    Goal: ≤ 20 MiB.
//
//   bun scripts/bench/memory.ts [--facts 5000] [--recalls 200] [--turns 50]
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEngine } from "../../core/engine/index.ts";
import { indexPath } from "../../core/memory/dir-index.ts";
import { formatFact } from "../../core/memory/fact.ts";
import { Recaller } from "../../core/memory/recall.ts";
import { MemoryStore } from "../../core/memory/store.ts";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { bareClient, benchDirs, noopTools } from "../lib/bench-engine.ts";

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const FACTS = opt("facts", 5000);
const RECALLS = opt("recalls", 200);
const TURNS = opt("turns", 50);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mib = (b: number) => b / 1024 / 1024;

const WORDS = "build test deploy docker postgres redis cache queue worker api schema migration lint format release staging production token config logging metrics tracing webhook cron backup index search upload image video email billing invoice auth session cookie cors proxy nginx kubernetes helm terraform bucket region latency retry timeout pool thread memory cpu disk network dns cert".split(" ");

// A fresh process's first recall: `--first-recall HOME WS MESSAGE` prints its milliseconds.
if (argv[0] === "--first-recall") {
  const [, h, w, m] = argv as [string, string, string, string];
  const t = performance.now();
  const got = new Recaller(new MemoryStore(h, w)).recall(m);
  process.stdout.write(JSON.stringify({ ms: performance.now() - t, considered: got.considered }));
  process.exit(0);
}

/** The first recall in `runs` fresh processes (median ms), the index removed first when `noIndex`. */
function firstRecall(store: MemoryStore, message: string, runs: number, noIndex: boolean): number {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (noIndex) for (const scope of ["project", "global"] as const) rmSync(indexPath(store.paths.scope(scope).facts), { force: true });
    const p = Bun.spawnSync([process.execPath, import.meta.path, "--first-recall", store.home, store.workspace, message], { stdout: "pipe", stderr: "inherit" });
    const got = JSON.parse(p.stdout.toString()) as { ms: number; considered: number };
    if (got.considered !== FACTS) throw new Error(`a fresh process recalled over ${got.considered} facts, not ${FACTS}`);
    ms.push(got.ms);
  }
  return median(ms);
}

const { home, ws, cleanup } = benchDirs("rx-bench-memory-");
try {
  const store = new MemoryStore(home, ws);
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const at = new Date().toISOString();
  for (const scope of ["project", "global"] as const) mkdirSync(store.paths.scope(scope).facts, { recursive: true });
  for (let i = 0; i < FACTS; i++) {
    const words = Array.from({ length: 12 + (next() % 30) }, () => WORDS[next() % WORDS.length]);
    const scope = i % 3 ? "project" : "global";
    const id = `fact-${i}`;
    writeFileSync(join(store.paths.scope(scope).facts, `${id}.md`), formatFact({ id, revision: 1, created: at, updated: at, type: "project", scope, text: words.join(" ") }), { mode: 0o600 });
  }
  const messages = Array.from({ length: RECALLS }, () => `why does the ${WORDS[next() % WORDS.length]} ${WORDS[next() % WORDS.length]} fail after the ${WORDS[next() % WORDS.length]} change?`);

  // --- the first recall of a process: no index (it is built and written), then with it --
  const coldMs = firstRecall(store, messages[0]!, 5, true);
  const warmMs = firstRecall(store, messages[0]!, 5, false);

  // --- 2. index memory ---------------------------------------------------------
  Bun.gc(true);
  const heap0 = process.memoryUsage().heapUsed;
  const recaller = new Recaller(store);
  const first = recaller.recall(messages[0]!);
  Bun.gc(true);
  const heapMiB = mib(process.memoryUsage().heapUsed - heap0);
  if (first.considered !== FACTS) throw new Error(`the index holds ${first.considered} facts, not ${FACTS}`);

  // --- 1. recall per turn -----------------------------------------------------
  const times: number[] = [];
  let picked = 0;
  for (const m of messages) {
    const t = performance.now();
    picked += recaller.recall(m).picked.length;
    times.push(performance.now() - t);
  }
  const recallMs = median(times);

  // A new session of a running process: the store's index is shared, only the first search is new.
  const fresh: number[] = [];
  for (let i = 0; i < 9; i++) {
    const t = performance.now();
    new Recaller(store).recall(messages[i]!);
    fresh.push(performance.now() - t);
  }
  const newSessionMs = median(fresh);

  // The turn's own host overhead: engine turn minus a bare exchange, memory off;
  // then the same turns with recall on (the index built by a warm-up turn):
  // what recall adds to a whole turn, the trace written with the session included.
  const ref = await startScriptedOpenAI(Array.from({ length: TURNS }, (_, i) => ({ text: `answer ${i}` })));
  const exchange = bareClient(ref.url, "m");
  const bare: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const t = performance.now();
    await exchange();
    bare.push(performance.now() - t);
  }
  await ref.close();
  async function engineTurns(recall: boolean): Promise<number> {
    const llm = await startScriptedOpenAI([{ text: "warm" }, ...Array.from({ length: TURNS }, (_, i) => ({ text: `answer ${i}` }))]);
    const engine = createEngine({
      workspace: ws,
      home,
      config: {
        providers: [{ name: "bench", kind: "openai", base_url: llm.url, model: "m", api_key_env: "BENCH_KEY" }],
        permissions: { mode: "auto", allow: [], ask: [], deny: [] },
        sandbox: {},
        tools: {},
        memory: { recall },
      },
      tools: noopTools({ name: "noop", description: "does nothing", kind: "read" }),
      permissionMode: "auto",
      headless: true,
    });
    const session = await engine.createSession();
    await session.submit(messages[0]!);
    const turns: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const t = performance.now();
      await session.submit(messages[(i + 1) % messages.length]!);
      turns.push(performance.now() - t);
    }
    await engine.close();
    await llm.close();
    return median(turns);
  }
  const offMs = await engineTurns(false);
  const onMs = await engineTurns(true);
  const hostMs = offMs - median(bare);
  const addedMs = onMs - offMs;

  console.log(`memory recall over ${FACTS} facts (${RECALLS} messages, ${picked} facts picked in all)`);
  console.log(`  recall per turn: median ${recallMs.toFixed(2)} ms  (goal ≤ 10 ms: ${recallMs <= 10 ? "met" : "NOT met"}; ratio to goal ${(recallMs / 10).toFixed(2)})`);
  console.log(`  beside the turn's own host overhead: median ${hostMs.toFixed(2)} ms (engine turn ${offMs.toFixed(2)} ms − bare exchange ${median(bare).toFixed(2)} ms, ${TURNS} turns)`);
  console.log(`  added to a whole engine turn: median ${addedMs.toFixed(2)} ms (recall on ${onMs.toFixed(2)} ms − off ${offMs.toFixed(2)} ms; goal ≤ 10 ms: ${addedMs <= 10 ? "met" : "NOT met"})`);
  console.log(`  first recall of a process: median ${warmMs.toFixed(1)} ms with the on-disk index (goal ≤ 50 ms: ${warmMs <= 50 ? "met" : "NOT met"}); ${coldMs.toFixed(1)} ms with none (read, parse, index, write it); ratio ${(warmMs / coldMs).toFixed(2)} (5 fresh processes each)`);
  console.log(`  first recall of a new session in a running process: median ${newSessionMs.toFixed(1)} ms`);
  console.log(`  index memory: ${heapMiB.toFixed(1)} MiB  (goal ≤ 20 MiB: ${heapMiB <= 20 ? "met" : "NOT met"}; ratio to goal ${(heapMiB / 20).toFixed(2)})`);
} finally {
  cleanup();
}
