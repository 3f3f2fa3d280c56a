/**
 * A local TCP listener whose connections go through the current SSH client to
 * a fixed remote address (`ssh -L`). The listener outlives SSH connections:
 * the supervisor attaches a client after each (re)connect and detaches it when
 * the link drops. While detached, new connections are closed at once rather
 * than left hanging.
 *
 * With a `page` (the serve tunnel: HTTP only), a request the link cannot carry
 * gets that page instead of a reset: while detached, and as soon as the link has
 * been silent for longer than a healthy one ever is (before it is declared dead).
 * That includes a request sent on a kept-alive connection: one whose client sent
 * bytes after the last response bytes is waiting for an answer that has not
 * started (HTTP/1.1 without pipelining), so the page is a whole answer to it.
 * Upgraded connections (WebSocket) are only ever closed.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { Client, ClientChannel } from "ssh2";
import type { Liveness } from "../ssh/liveness.ts";
import { ReasonixError } from "../../core/errors.ts";
import { openChannel, type HostPort } from "./http.ts";
import { splice } from "./splice.ts";

interface Carried {
  ch: ClientChannel | null;
  /** The client sent bytes after the last response bytes: its answer has not started. */
  waiting: boolean;
  /** Switched protocols (101): not HTTP any more, never gets a page. */
  upgraded: boolean;
}

export class LocalListener {
  private server: Server | null = null;
  private client: Client | null = null;
  private target: HostPort | null = null;
  private liveness: Liveness | null = null;
  private sweep: ReturnType<typeof setInterval> | null = null;
  private readonly open = new Map<Socket, Carried>();
  boundPort = 0;
  /** Told when a connection could not be carried (the remote end refused it: serve gone?). */
  onOpenFailed: ((e: Error) => void) | null = null;

  constructor(
    readonly bind: HostPort,
    /** For messages: "tunnel" or "-L 127.0.0.1:5432 -> db:5432". */
    readonly label: string,
    /** A whole HTTP response for a request the link cannot carry now (see the top). */
    private readonly page: (() => string) | null = null,
  ) {}

  /** Bind now (before any SSH connection exists), so conflicts surface first. */
  async listen(): Promise<number> {
    const server = createServer({ noDelay: true }, (sock) => this.onConnection(sock));
    await new Promise<void>((resolve, reject) => {
      server.once("error", (e: NodeJS.ErrnoException) => {
        const why = e.code === "EADDRINUSE" ? "address already in use" : e.code === "EACCES" ? "permission denied" : e.message;
        reject(
          new ReasonixError("bind_failed", `cannot listen on ${this.bind.host}:${this.bind.port} for ${this.label}: ${why}`, {
            hint: e.code === "EADDRINUSE" ? "pick another port (--local-port), or stop whatever holds it" : undefined,
          }),
        );
      });
      server.listen(this.bind.port, this.bind.host, () => resolve());
    });
    server.on("error", () => {});
    this.server = server;
    const a = server.address();
    this.boundPort = typeof a === "object" && a ? a.port : this.bind.port;
    return this.boundPort;
  }

  attach(client: Client, target: HostPort, liveness: Liveness | null = null): void {
    this.client = client;
    this.target = target;
    this.liveness = liveness;
    if (this.page && liveness && !this.sweep) {
      // A link gone silent: every request still waiting for its answer gets the page now.
      this.sweep = setInterval(() => {
        if (!this.liveness?.suspect()) return;
        for (const [s, c] of [...this.open]) if (c.waiting && !c.upgraded) this.refuse(s, c);
      }, 200);
    }
  }

  /** The link is gone: refuse new connections and drop the ones in flight (waiting requests get the page). */
  detach(): void {
    this.client = null;
    this.liveness = null;
    if (this.sweep) clearInterval(this.sweep);
    this.sweep = null;
    for (const [s, c] of [...this.open]) {
      if (this.page && c.waiting && !c.upgraded) this.refuse(s, c);
      else s.destroy();
    }
    this.open.clear();
  }

  async close(): Promise<void> {
    this.detach();
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  private onConnection(sock: Socket): void {
    const client = this.client;
    const target = this.target;
    const live = this.liveness;
    if (!client || !target || (this.page && live?.suspect())) {
      this.refuse(sock);
      return;
    }
    const c: Carried = { ch: null, waiting: true, upgraded: false };
    this.open.set(sock, c);
    sock.on("close", () => this.open.delete(sock));
    sock.on("error", () => {});
    sock.pause();
    openChannel(client, target, { host: sock.remoteAddress ?? "127.0.0.1", port: sock.remotePort ?? 0 }).then(
      (ch) => {
        if (sock.destroyed || this.open.get(sock) !== c) {
          ch.close();
          return;
        }
        c.ch = ch;
        if (this.page) {
          sock.on("data", () => (c.waiting = true));
          ch.on("data", (d: Buffer) => {
            if (c.waiting && d.subarray(0, 12).toString("latin1") === "HTTP/1.1 101") c.upgraded = true;
            c.waiting = false;
          });
        }
        splice(sock, ch);
        sock.resume();
      },
      (e: Error) => {
        if (this.open.get(sock) !== c) return;
        // Refused by the remote end (serve gone?) is not a link problem: close as before.
        if (this.page && (!this.client || live?.suspect())) this.refuse(sock, c);
        else sock.destroy();
        this.onOpenFailed?.(e);
      },
    );
  }

  /** Answer with the page (HTTP tunnel) or close; whatever was carried for it is dropped. */
  private refuse(sock: Socket, c?: Carried): void {
    if (c) {
      this.open.delete(sock);
      if (c.ch) {
        sock.unpipe(c.ch);
        c.ch.unpipe(sock);
        c.ch.destroy();
      }
    }
    if (!this.page || sock.destroyed) {
      sock.destroy();
      return;
    }
    // Read (and drop) the request: closing with unread bytes would turn our answer into a reset.
    sock.on("data", () => {});
    sock.resume();
    sock.end(this.page());
    setTimeout(() => sock.destroy(), 5000).unref?.();
  }
}
