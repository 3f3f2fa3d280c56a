import { UsageError } from "../../core/errors.ts";

export interface HostSpec {
  user?: string;
  host: string;
  port?: number;
}

/**
 * Parse `[user@]host[:port]`; IPv6 literals go in brackets (`[::1]:2222`).
 * Also accepts `ssh://[user@]host[:port]` as OpenSSH's ProxyJump does.
 */
export function parseHostSpec(spec: string): HostSpec {
  let s = spec.trim().replace(/^ssh:\/\//, "");
  let user: string | undefined;
  const at = s.lastIndexOf("@");
  if (at >= 0) {
    user = s.slice(0, at);
    s = s.slice(at + 1);
    if (!user) throw new UsageError(`"${spec}": empty user name before @`);
  }
  let host = s;
  let portText: string | undefined;
  const bracket = /^\[([^\]]+)\](?::(.*))?$/.exec(s);
  if (bracket) {
    host = bracket[1]!;
    portText = bracket[2];
  } else if ((s.match(/:/g) ?? []).length === 1) {
    [host, portText] = s.split(":") as [string, string];
  }
  if (!host || /[\s/]/.test(host)) throw new UsageError(`"${spec}": expected [USER@]HOST[:PORT]`);
  let port: number | undefined;
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw new UsageError(`"${spec}": port must be 1-65535`);
  }
  return { user, host, port };
}

/** A ProxyJump value: comma-separated hops. */
export const parseJumpList = (spec: string): HostSpec[] =>
  spec.split(",").map((s) => s.trim()).filter(Boolean).map(parseHostSpec);
