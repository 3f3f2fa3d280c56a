// Startup milestones for benchmarks and diagnosis. With
// REASONIX_STARTUP_TRACE=<file>, each mark appends one JSON line:
//   {"mark":"first-frame","ms":41.2,"cpuMs":28.5}
// ms: wall time since the process started; cpuMs: user+system CPU time of the
// process so far (all threads), which a busy machine barely changes.
// Without the variable a mark is one environment lookup.
import { appendFileSync } from "node:fs";

export function startupMark(mark: string): void {
  const file = process.env.REASONIX_STARTUP_TRACE;
  if (!file) return;
  const { user, system } = process.cpuUsage();
  try {
    appendFileSync(file, `${JSON.stringify({ mark, ms: Number(performance.now().toFixed(2)), cpuMs: Number(((user + system) / 1000).toFixed(2)) })}\n`);
  } catch {
    // A diagnostic must not break the program.
  }
}
