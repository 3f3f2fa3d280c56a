import type { Client } from "ssh2";

/**
 * OpenSSH's sshd switches TCP_NODELAY on for a connection only when a session
 * runs something (exec, shell, subsystem). A connection used purely for
 * direct-tcpip channels keeps Nagle on, and every small HTTP response through
 * the tunnel then waits ~40 ms for our delayed ACK. Starting (and at once
 * closing) the sftp subsystem flips the switch without spawning a shell.
 * Failure (sftp disabled) only costs the optimisation.
 */
export function nudgeNoDelay(client: Client, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, timeoutMs);
    try {
      client.sftp((err, sftp) => {
        clearTimeout(t);
        if (!err) sftp.end();
        resolve();
      });
    } catch {
      clearTimeout(t);
      resolve();
    }
  });
}
