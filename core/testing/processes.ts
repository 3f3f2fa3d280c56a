// Which processes are still alive, for tests that must prove a kill left nothing behind.
import { readdirSync, readFileSync } from "node:fs";

/** Processes (not this one) whose command line mentions `marker`, by pid. */
export function processesMentioning(marker: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, "utf8").includes(marker)) out.push(Number(d));
    } catch {}
  }
  return out;
}
