import type { Socket } from "node:net";
import type { ClientChannel } from "ssh2";

/**
 * Join a local socket and an SSH channel both ways. A normal end travels as
 * EOF (so bytes in flight still arrive); an error on either side tears down
 * the other.
 */
export function splice(sock: Socket, ch: ClientChannel): void {
  sock.on("error", () => ch.destroy());
  ch.on("error", () => sock.destroy());
  // Once the channel is closed nothing more will come: let the socket flush, then finish.
  ch.on("close", () => sock.end());
  sock.on("close", () => {
    if (!ch.writableEnded) ch.end();
  });
  sock.pipe(ch);
  ch.pipe(sock);
}
