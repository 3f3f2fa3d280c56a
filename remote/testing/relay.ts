/**
 * Test helper: a TCP relay on loopback standing between a client and sshd, so a
 * test can shape or break "the link" without root or a namespace:
 * - `rateBytesPerSec` paces each direction (a slow link, so a transfer can be
 *   interrupted midway; `setRate` changes it mid-transfer), `delayMs` adds latency per chunk;
 * - `blackhole()` keeps both sockets open but forwards nothing (a cut cable:
 *   only keepalives notice), `restore()` undoes it;
 * - `reset()` destroys every relayed connection at once (a RST).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface RelayOptions {
  targetHost?: string;
  targetPort: number;
  /** Listen here (default: any free loopback port), e.g. to come back on the same port. */
  port?: number;
  rateBytesPerSec?: number;
  delayMs?: number;
}

export interface Relay {
  port: number;
  /** Connections accepted so far. */
  accepted(): number;
  /** Change the pace from now on (undefined: as fast as it goes). */
  setRate(bytesPerSec: number | undefined): void;
  blackhole(): void;
  restore(): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startRelay(options: RelayOptions): Promise<Relay> {
  const opts = { ...options };
  const pairs = new Set<[Socket, Socket]>();
  let holed = false;
  let count = 0;
  const pump = (from: Socket, to: Socket) => {
    let busyUntil = 0;
    from.on("data", (chunk: Buffer) => {
      if (holed) return; // swallowed: the far side never hears of it
      const rate = opts.rateBytesPerSec;
      const delay = opts.delayMs ?? 0;
      if (!rate && !delay) {
        if (!to.write(chunk)) {
          from.pause();
          to.once("drain", () => from.resume());
        }
        return;
      }
      const now = Date.now();
      const sendAt = Math.max(now, busyUntil) + (rate ? (chunk.length / rate) * 1000 : 0);
      busyUntil = sendAt;
      from.pause();
      setTimeout(() => {
        if (!holed && !to.destroyed) to.write(chunk);
        if (!from.destroyed) from.resume();
      }, sendAt - now + delay);
    });
    from.on("error", () => {});
    from.on("close", () => to.destroy());
  };
  const server: Server = createServer((client) => {
    count++;
    const upstream = connect({ host: opts.targetHost ?? "127.0.0.1", port: opts.targetPort });
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on("close", () => pairs.delete(pair));
    pump(client, upstream);
    pump(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    port,
    accepted: () => count,
    setRate: (rate) => void (opts.rateBytesPerSec = rate),
    blackhole: () => void (holed = true),
    restore: () => void (holed = false),
    reset: () => {
      for (const [a, b] of pairs) {
        a.resetAndDestroy?.() ?? a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
