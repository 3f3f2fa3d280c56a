/**
 * Milestones for benchmarks and diagnosis, as JSON lines. With
 * REASONIX_TRACE=<file> (or the older REASONIX_STARTUP_TRACE, which the chat's
 * first-frame benchmark sets), each mark appends one line:
 *
 *   {"mark":"run:request","ms":41.2,"cpuMs":28.5}
 *   {"mark":"bash:spawn","ms":63.0,"cpuMs":40.1,"durMs":1.92,"round":1}
 *
 * ms: wall time since the process started (performance.now(), whose origin is
 * the process start); cpuMs: user+system CPU of the process so far; durMs, on
 * a step: how long the step took, ending at `ms`. Startup marks run in order
 * from `main` to the front end's first request (`request`); tool rounds mark
 * each step (permission, git-state scan, checkpoint, sandbox setup, spawn,
 * output, log write) with the round's number. docs/how-fast.md lists them.
 *
 * Without the variable a mark is one environment lookup and nothing else.
 */
import { appendFileSync } from "node:fs";

export type TraceFields = Record<string, string | number | boolean>;

/** The trace file, or undefined when tracing is off. */
export function traceFile(): string | undefined {
  return process.env.REASONIX_TRACE || process.env.REASONIX_STARTUP_TRACE || undefined;
}

/** Appends one milestone (a no-op without REASONIX_TRACE). */
export function traceMark(mark: string, fields?: TraceFields, at = performance.now()): void {
  const file = traceFile();
  if (!file) return;
  const { user, system } = process.cpuUsage();
  const line = { mark, ms: round(at), cpuMs: round((user + system) / 1000), ...fields };
  try {
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  } catch {
    // A diagnostic must not break the program.
  }
}

/** Start of a step: the time to hand to traceStep (0 when tracing is off, so a step costs nothing). */
export const traceStart = (): number => (traceFile() ? performance.now() : 0);

/** The end of a step that began at `t0` (from traceStart): a mark with its duration. */
export function traceStep(mark: string, t0: number, fields?: TraceFields): void {
  if (t0 === 0 || !traceFile()) return;
  // One clock reading for both: a step's start is exactly ms - durMs, even if the thread is preempted in between.
  const now = performance.now();
  traceMark(mark, { durMs: round(now - t0), ...fields }, now);
}

/** Runs `f` as one step (synchronous work only). */
export function traced<T>(mark: string, f: () => T, fields?: TraceFields): T {
  const t0 = traceStart();
  try {
    return f();
  } finally {
    traceStep(mark, t0, fields);
  }
}

let rounds = 0;
/** A number for the next tool call's marks (per process, from 1). */
export const nextTraceRound = (): number => ++rounds;

const round = (x: number) => Number(x.toFixed(2));
