/**
 * Parsing threads for a cold or large re-index, when asked for (workersWanted:
 * off by default, see there): batches of files go to up to that many workers
 * (tree-sitter parsing is synchronous and CPU-bound; the main thread keeps
 * walking, stat-ing and reading). Small updates never come here (store.ts
 * parses fewer than one batch in-process).
 *
 * Fails over to in-process parsing, for good in this process, when a worker
 * cannot start (a build without the worker entrypoint, a platform without
 * threads) or does not answer its first batch in time. Idle workers are ended
 * after a few seconds; they never keep the process alive.
 */
import { availableParallelism } from "node:os";
import type { CodeSymbol } from "./extract.ts";
import type { LangId } from "./grammars.ts";
import { parseSymbols } from "./parse.ts";
import type { WorkerReply, WorkerRequest } from "./worker.ts";

export type ParseJob = { text: string; lang: LangId };
export type ParseResult = CodeSymbol[] | { error: string };

/** Files per message to a worker. */
export const BATCH = 48;
const FIRST_REPLY_MS = 30_000;
const IDLE_MS = 3_000;

interface Pending {
  id: number;
  jobs: ParseJob[];
  resolve(r: ParseResult[]): void;
}
interface Slot {
  worker: Worker;
  busy: Pending | null;
  answered: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

let slots: Slot[] = [];
const waiting: Pending[] = [];
let nextId = 1;
let idleTimer: ReturnType<typeof setTimeout> | undefined;
/** Why workers are not used in this process (null: they are, or have not been tried). */
let brokenReason: string | null = null;
/** Where the worker module is (null: this build has none); set once by the first use. */
let workerUrl: Promise<string | null> | undefined;

export const poolState = () => ({ workers: slots.length, broken: brokenReason });

/** Tests: start workers from URL from now on (null: none), with a fresh pool. */
export function resetPool(url?: string | null): void {
  for (const s of slots) s.worker.terminate();
  slots = [];
  brokenReason = null;
  workerUrl = url === undefined ? undefined : Promise.resolve(url);
}

/**
 * How many parsing workers to use: REASONIX_CODE_INDEX_WORKERS (a number, at most the cores),
 * else none. Measured on the 2-core reference machine (docs/code-index.md), workers made a
 * cold index slower and cost more CPU: each thread compiles the grammar's WebAssembly again
 * and parses slower than the main thread, so parsing stays in-process by default.
 */
export function workersWanted(): number {
  const n = Number(process.env.REASONIX_CODE_INDEX_WORKERS ?? 0);
  return Number.isInteger(n) && n > 0 ? Math.min(n, availableParallelism()) : 0;
}

/** Parse one file's text in this thread. */
async function parseHere(job: ParseJob): Promise<ParseResult> {
  try {
    return await parseSymbols(job.text, job.lang);
  } catch (e) {
    return { error: (e as Error).message };
  }
}

async function runHere(p: Pending): Promise<void> {
  const out: ParseResult[] = [];
  let since = performance.now();
  for (const job of p.jobs) {
    out.push(await parseHere(job));
    // Parsing blocks this thread: let streams, other tools and Ctrl-C have a turn now and then.
    if (performance.now() - since > 25) {
      await new Promise((r) => setImmediate(r));
      since = performance.now();
    }
  }
  p.resolve(out);
}

/** Stop using workers: end them and parse what they held, and what waits, in this thread. */
function breakPool(reason: string): void {
  brokenReason ??= reason;
  const held = slots.flatMap((s) => (s.busy ? [s.busy] : []));
  for (const s of slots) {
    clearTimeout(s.timer);
    s.worker.terminate();
  }
  slots = [];
  for (const p of [...held, ...waiting.splice(0)]) void runHere(p);
}

/** Bun's Worker ref/unref: a busy worker keeps the process alive (its caller awaits it), an idle one does not. */
const hold = (w: Worker, on: boolean) => (w as unknown as { ref?(): void; unref?(): void })[on ? "ref" : "unref"]?.();

function dispatch(slot: Slot): void {
  const p = waiting.shift();
  slot.busy = p ?? null;
  hold(slot.worker, !!p);
  if (!p) {
    if (slots.every((s) => !s.busy)) scheduleIdle();
    return;
  }
  if (!slot.answered) {
    slot.timer = setTimeout(() => breakPool(`a parsing worker did not answer within ${FIRST_REPLY_MS / 1000} s`), FIRST_REPLY_MS);
    slot.timer.unref?.();
  }
  slot.worker.postMessage({ id: p.id, jobs: p.jobs } satisfies WorkerRequest);
}

function scheduleIdle(): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (slots.some((s) => s.busy)) return;
    for (const s of slots) s.worker.terminate();
    slots = [];
  }, IDLE_MS);
  idleTimer.unref?.();
}

function spawn(url: string): void {
  let worker: Worker;
  try {
    worker = new Worker(url);
  } catch (e) {
    breakPool(`cannot start a parsing worker: ${(e as Error).message}`);
    return;
  }
  const slot: Slot = { worker, busy: null, answered: false };
  worker.onmessage = (e: MessageEvent<WorkerReply>) => {
    clearTimeout(slot.timer);
    slot.answered = true;
    const p = slot.busy;
    if (p && p.id === e.data.id) p.resolve(e.data.results);
    dispatch(slot);
  };
  worker.onerror = (e) => breakPool(`a parsing worker failed: ${e.message}`);
  slots.push(slot);
  dispatch(slot);
}

/**
 * Parse a batch on a worker (starting one while fewer than the cores run and
 * none is free), or in this thread when workers are unavailable.
 */
export async function parseBatch(jobs: ParseJob[], maxWorkers = workersWanted()): Promise<ParseResult[]> {
  clearTimeout(idleTimer);
  workerUrl ??= import("./assets.ts").then((m) => m.workerUrl()).catch(() => null);
  const url = brokenReason ? null : await workerUrl;
  return new Promise((resolve) => {
    const p: Pending = { id: nextId++, jobs, resolve };
    if (maxWorkers < 1 || !url || brokenReason || typeof Worker === "undefined") {
      void runHere(p);
      return;
    }
    waiting.push(p);
    const free = slots.find((s) => !s.busy);
    if (free) dispatch(free);
    else if (slots.length < maxWorkers) spawn(url);
  });
}

/** Parse JOBS in this thread (a handful of changed files: no worker start-up). */
export const parseInProcess = (jobs: ParseJob[]): Promise<ParseResult[]> => new Promise((resolve) => void runHere({ id: 0, jobs, resolve }));
