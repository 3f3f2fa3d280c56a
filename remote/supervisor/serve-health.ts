/**
 * While connected, the supervisor asks the remote serve for /healthz through
 * the SSH connection every `intervalMs`, and at once when `kick()` says a tunnel
 * connection was refused. A failure is confirmed by a second check before it is
 * reported: one lost request must not restart a working serve.
 */
import type { Client } from "ssh2";
import { httpViaSsh, type HostPort } from "../tunnel/http.ts";

export interface HealthWatchOptions {
  intervalMs: number;
  /** Gap before the confirming check (default 300 ms). */
  confirmMs?: number;
}

export class HealthWatch {
  private wake: (() => void) | null = null;
  private stopped = false;

  constructor(
    /** One check: null when healthy, else why not. */
    private readonly check: () => Promise<string | null>,
    private readonly o: HealthWatchOptions,
  ) {}

  /** Check now instead of at the next tick. */
  kick(): void {
    this.wake?.();
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.wake = null;
        resolve();
      };
      const t = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** Resolves with the reason once the serve fails two checks in a row, or null once stopped. */
  async nextFailure(): Promise<string | null> {
    while (!this.stopped) {
      await this.pause(this.o.intervalMs);
      if (this.stopped) return null;
      const first = await this.check();
      if (first === null || this.stopped) continue;
      await new Promise((r) => setTimeout(r, this.o.confirmMs ?? 300));
      if (this.stopped) return null;
      const second = await this.check();
      if (second !== null) return second;
    }
    return null;
  }
}

/** Crash-loop guard: `lost()` returns true when this loss makes `max` within `windowMs`. */
export class LossWindow {
  private readonly times: number[] = [];
  constructor(private readonly max = 3, private readonly windowMs = 60_000) {}
  lost(now = Date.now()): boolean {
    this.times.push(now);
    while (this.times.length && now - this.times[0]! > this.windowMs) this.times.shift();
    return this.times.length >= this.max;
  }
}

/** One /healthz of the serve at `addr` through the connection: null when it answers 200, else why not. */
export async function serveHealthOnce(client: Client, addr: HostPort, timeoutMs = 5000): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<string>((r) => (timer = setTimeout(() => r(`timeout: no answer within ${timeoutMs} ms`), timeoutMs)));
  const ask = httpViaSsh(client, addr, "/healthz", { timeoutMs }).then(
    (res) => (res.status === 200 ? null : `/healthz answered ${res.status}`),
    (e: Error) => `refused: ${e.message}`,
  );
  try {
    return await Promise.race([ask, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
