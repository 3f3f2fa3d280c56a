import { ReasonixError } from "../../core/errors.ts";

/**
 * Errors from the SSH layer. `terminal` ones must stop any reconnect loop:
 * retrying cannot fix a wrong host key or a refused credential.
 */
export class SshError extends ReasonixError {
  readonly terminal: boolean;
  constructor(code: string, message: string, opts: { terminal?: boolean; hint?: string; cause?: unknown } = {}) {
    super(code, message, { hint: opts.hint, cause: opts.cause });
    this.name = "SshError";
    this.terminal = opts.terminal ?? false;
  }
}

/** The server's key contradicts a recorded one. Never promptable. */
export class HostKeyMismatch extends SshError {
  constructor(
    readonly host: string,
    readonly recordedAt: string,
    readonly fingerprint: string,
  ) {
    super(
      "host_key_mismatch",
      `host key for ${host} does not match the key recorded at ${recordedAt} (server offered ${fingerprint}). ` +
        "Someone may be intercepting the connection, or the host was reinstalled.",
      { terminal: true, hint: `if the host key really changed, delete the line at ${recordedAt} and connect again` },
    );
    this.name = "HostKeyMismatch";
  }
}

/** The server's key is marked @revoked. */
export class HostKeyRevoked extends SshError {
  constructor(readonly host: string, readonly recordedAt: string) {
    super("host_key_revoked", `host key for ${host} is marked @revoked at ${recordedAt}; refusing to connect`, { terminal: true });
    this.name = "HostKeyRevoked";
  }
}

/** First contact with a host and no way (or no permission) to ask. */
export class HostUnknown extends SshError {
  constructor(readonly host: string, readonly fingerprint: string, detail = "", hint?: string) {
    super(
      "host_unknown",
      `host key for ${host} is not known (${fingerprint})${detail ? `; ${detail}` : ""}`,
      { terminal: true, hint: hint ?? "check the fingerprint out of band, then re-run with --accept-new (or from a terminal to be asked)" },
    );
    this.name = "HostUnknown";
  }
}

export class AuthFailed extends SshError {
  constructor(readonly target: string, readonly tried: string[], detail = "") {
    super(
      "auth_failed",
      `authentication to ${target} failed${tried.length ? ` (tried: ${tried.join(", ")})` : ""}${detail ? `; ${detail}` : ""}`,
      { terminal: true, hint: "check user, identity_file, the agent (ssh-add -l), passphrase_env/password_env" },
    );
    this.name = "AuthFailed";
  }
}

/** Network-level failure: refused, timed out, reset. Retryable. */
export class ConnectFailed extends SshError {
  constructor(target: string, detail: string, cause?: unknown) {
    super("connect_failed", `cannot connect to ${target}: ${detail}`, { cause });
    this.name = "ConnectFailed";
  }
}

/** True for errors a reconnect loop must not retry. */
export const isTerminalSshError = (e: unknown): boolean => e instanceof SshError && e.terminal;

const ERRNO_TEXT: Record<string, string> = {
  EHOSTUNREACH: "no route to host (the network path is down)",
  ENETUNREACH: "network unreachable (no route to that network)",
  ENETDOWN: "network is down",
  ETIMEDOUT: "timed out (no answer from the host)",
  ECONNREFUSED: "connection refused (nothing listens on that port; is sshd running?)",
  ECONNRESET: "connection reset by the peer",
  ECONNABORTED: "connection aborted",
  EPIPE: "connection closed by the peer",
  EADDRNOTAVAIL: "address not available",
};

/**
 * What happened to a connection, in words: the errno (no route, timeout,
 * refused…) rather than a bare code, or ssh2's keepalive/handshake timeouts.
 */
export function describeNetError(e: unknown): string {
  const err = e as (Error & { code?: string; level?: string }) | undefined;
  if (!err) return "connection closed";
  if (/keepalive timeout/i.test(err.message ?? "")) {
    const silent = /no bytes from the server for [\d.]+ s/.exec(err.message ?? "")?.[0];
    return `${silent ?? "no reply to keepalives"} (the link is down or the host stopped answering)`;
  }
  if (err.level === "client-timeout") return "timed out during the SSH handshake";
  const code = typeof err.code === "string" ? err.code : undefined;
  if (code && ERRNO_TEXT[code]) return ERRNO_TEXT[code]!;
  if (code) return `${code} (${err.message})`;
  return err.message || "connection closed";
}
