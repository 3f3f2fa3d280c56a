/**
 * Slots for the subagents of one session tree (a root session and every
 * child below it): at most `maxConcurrency` children run at once, of which at
 * most `maxParallelWriters` may write, and two writers never at the same time
 * when their declared write paths overlap (a writer without declared paths
 * overlaps every other writer, so it runs alone among writers). Callers that
 * do not fit wait, first come first served among those that fit.
 */
import { ReasonixError } from "../errors.ts";
import type { AgentLimits } from "./config.ts";
import { pathsOverlap } from "./paths.ts";

export interface SlotRequest {
  writer: boolean;
  /** Normalized write paths (see paths.ts); empty for a writer means "anywhere". */
  paths: string[];
}

interface Holder extends SlotRequest { id: number }
interface Waiter extends Holder { start(): void }

export class AgentTree {
  private readonly running: Holder[] = [];
  private readonly waiting: Waiter[] = [];
  private seq = 0;
  /** Most children ever running at once (for tests and receipts). */
  peak = 0;
  peakWriters = 0;

  constructor(readonly limits: AgentLimits) {}

  private fits(r: SlotRequest): boolean {
    if (this.running.length >= this.limits.maxConcurrency) return false;
    if (!r.writer) return true;
    const writers = this.running.filter((h) => h.writer);
    if (writers.length >= this.limits.maxParallelWriters) return false;
    return !writers.some((w) => pathsOverlap(w.paths, r.paths));
  }

  private begin(h: Holder): () => void {
    this.running.push(h);
    this.peak = Math.max(this.peak, this.running.length);
    this.peakWriters = Math.max(this.peakWriters, this.running.filter((x) => x.writer).length);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running.splice(this.running.indexOf(h), 1);
      this.pump();
    };
  }

  private pump(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.waiting[i]!;
      if (this.fits(w)) {
        this.waiting.splice(i, 1);
        w.start();
      } else i++;
    }
  }

  /** Wait for a slot; the returned function gives it back (idempotent). */
  acquire(r: SlotRequest, signal?: AbortSignal): Promise<() => void> {
    const h: Holder = { ...r, id: ++this.seq };
    if (this.fits(r)) return Promise.resolve(this.begin(h));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new ReasonixError("cancelled", "cancelled while waiting for a subagent slot"));
      };
      const w: Waiter = {
        ...h,
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.begin(h));
        },
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(w);
    });
  }
}
