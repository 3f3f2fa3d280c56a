/**
 * `ssh -R`: ask the server to listen on the remote side and carry each
 * connection back to a local target. The registration lives and dies with one
 * SSH connection, so the supervisor calls `attach` after every reconnect.
 */
import { connect, type Socket } from "node:net";
import type { Client, ClientChannel, TcpConnectionDetails } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { splice } from "../tunnel/splice.ts";
import { describeForward, type Forward } from "./spec.ts";

export class RemoteForward {
  private client: Client | null = null;
  private readonly open = new Set<Socket>();
  private handler: ((info: TcpConnectionDetails, accept: () => ClientChannel, reject: () => void) => void) | null = null;

  constructor(readonly forward: Forward) {}

  /** Resolves with the port bound on the remote (the one asked for, or the server's pick for 0). */
  attach(client: Client): Promise<number> {
    const f = this.forward;
    return new Promise((resolve, reject) => {
      try {
        client.forwardIn(f.bind.host, f.bind.port, (err, bound) => {
          if (err) {
            reject(
              new ReasonixError("remote_bind_failed", `the remote refused ${describeForward(f)}: ${err.message}`, {
                hint: "the remote port may be in use, or sshd forbids it (AllowTcpForwarding / GatewayPorts)",
              }),
            );
            return;
          }
          this.client = client;
          const port = f.bind.port || bound;
          this.handler = (info, accept, rej) => {
            if (info.destPort !== port) return; // another forward's connection
            this.carry(accept, rej);
          };
          client.on("tcp connection", this.handler);
          resolve(port);
        });
      } catch (e) {
        reject(e);
      }
    });
  }

  private carry(accept: () => ClientChannel, reject: () => void): void {
    const t = this.forward.target;
    const sock = connect({ host: t.host, port: t.port, noDelay: true });
    sock.on("error", () => {});
    let ch: ClientChannel | null = null;
    sock.once("connect", () => {
      ch = accept();
      this.open.add(sock);
      sock.on("close", () => this.open.delete(sock));
      splice(sock, ch);
    });
    sock.once("error", () => {
      if (!ch) reject();
    });
  }

  /** The connection is gone (or we are stopping): forget it, drop carried sockets. */
  detach(): void {
    if (this.client && this.handler) this.client.off("tcp connection", this.handler);
    this.client = null;
    this.handler = null;
    for (const s of this.open) s.destroy();
    this.open.clear();
  }
}
