/**
 * A local TCP listener whose connections go through the current SSH client to
 * a fixed remote address (`ssh -L`). The listener outlives SSH connections:
 * the supervisor attaches a client after each (re)connect and detaches it when
 * the link drops. While detached, new connections are closed at once rather
 * than left hanging.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { Client } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { openChannel, type HostPort } from "./http.ts";
import { splice } from "./splice.ts";

export class LocalListener {
  private server: Server | null = null;
  private client: Client | null = null;
  private target: HostPort | null = null;
  private readonly open = new Set<Socket>();
  boundPort = 0;
  /** Told when a connection could not be carried (the remote end refused it: serve gone?). */
  onOpenFailed: ((e: Error) => void) | null = null;

  constructor(
    readonly bind: HostPort,
    /** For messages: "tunnel" or "-L 127.0.0.1:5432 -> db:5432". */
    readonly label: string,
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

  attach(client: Client, target: HostPort): void {
    this.client = client;
    this.target = target;
  }

  /** The link is gone: refuse new connections and drop the ones in flight. */
  detach(): void {
    this.client = null;
    for (const s of this.open) s.destroy();
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
    if (!client || !target) {
      sock.destroy();
      return;
    }
    this.open.add(sock);
    sock.on("close", () => this.open.delete(sock));
    sock.on("error", () => {});
    sock.pause();
    openChannel(client, target, { host: sock.remoteAddress ?? "127.0.0.1", port: sock.remotePort ?? 0 }).then(
      (ch) => {
        if (sock.destroyed) {
          ch.close();
          return;
        }
        splice(sock, ch);
        sock.resume();
      },
      (e: Error) => {
        sock.destroy();
        this.onOpenFailed?.(e);
      },
    );
  }
}
