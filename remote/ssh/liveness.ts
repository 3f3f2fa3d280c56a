/**
 * Is the server still there? Any bytes from it say yes (as OpenSSH's
 * ServerAlive: a keepalive only probes a silent link). After `probeMs` of
 * silence we send keepalive@openssh.com requests (at most one per `probeMs`);
 * after `deadMs` of silence the link is declared dead: the client gets an
 * 'error' whose message starts "Keepalive timeout" and its socket is destroyed.
 *
 * ssh2's own keepalive is replaced, not tuned: it only counted its own replies,
 * and a reply waits behind every byte queued on a saturated upload, so a tight
 * bound there cut healthy transfers. Counting silence from the last byte lets
 * the bound be short (5 s by default) without false alarms.
 */
import type { Client } from "ssh2";

export interface Liveness {
  /** Date.now() of the last bytes received from the server. */
  lastRxAt(): number;
  /** Milliseconds since then. */
  silentMs(): number;
  /** Silent for longer than a healthy idle link ever is (two probe intervals): requests should not wait on it. */
  suspect(): boolean;
}

interface Internals {
  _sock?: NodeJS.ReadableStream & { writable?: boolean; destroy?: () => void; destroyed?: boolean };
  _protocol?: { ping(): void };
  _callbacks?: ((err?: unknown) => void)[];
}

/** The bound on silence that `probeMs`/`countMax` (keepalive_interval_ms / keepalive_count_max) give. */
export const deadAfterMs = (probeMs: number, countMax: number): number => probeMs * (Math.max(1, countMax) + 1);

/** Watch `client` (already 'ready'). Returns a Liveness that reports "never silent" when ssh2's internals are not there. */
export function watchLiveness(client: Client, probeMs: number, deadMs: number): Liveness {
  const ssh = client as unknown as Internals;
  const sock = ssh._sock;
  let lastRx = Date.now();
  const live: Liveness = {
    lastRxAt: () => lastRx,
    silentMs: () => Date.now() - lastRx,
    suspect: () => Date.now() - lastRx > 2 * probeMs,
  };
  if (!sock || !ssh._protocol || !Array.isArray(ssh._callbacks) || !(probeMs > 0) || !(deadMs > 0)) return live;
  sock.on("data", () => {
    lastRx = Date.now();
  });
  let lastPing = 0;
  const tick = () => {
    const now = Date.now();
    const silent = now - lastRx;
    if (silent >= deadMs) {
      stop();
      if (sock.destroyed) return;
      const err = Object.assign(new Error(`Keepalive timeout: no bytes from the server for ${(silent / 1000).toFixed(1)} s`), { level: "client-timeout" });
      client.emit("error", err);
      sock.destroy?.();
      return;
    }
    if (silent >= probeMs && now - lastPing >= probeMs && sock.writable !== false) {
      lastPing = now;
      try {
        // The reply takes the oldest global-request callback: queue ours so the order holds.
        ssh._callbacks!.push(() => {});
        ssh._protocol!.ping();
      } catch {}
    }
  };
  const timer = setInterval(tick, Math.max(50, Math.min(250, Math.floor(probeMs / 4))));
  const stop = () => clearInterval(timer);
  client.once("close", stop);
  return live;
}
