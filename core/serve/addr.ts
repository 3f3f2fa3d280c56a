import { networkInterfaces } from "node:os";
import { isIP } from "node:net";
import { UsageError } from "../errors.ts";
import { isLoopbackHost } from "./loopback.ts";

export interface ListenAddr {
  /** Host as given, without brackets ("127.0.0.1", "::1", "0.0.0.0", "localhost"). */
  host: string;
  port: number;
}

/** Parse `HOST:PORT`, `[v6]:PORT`, `:PORT` or a bare port. Port 0 means "any free port". */
export function parseAddr(text: string): ListenAddr {
  const s = text.trim();
  let host: string;
  let portText: string;
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(s);
  if (v6) {
    host = v6[1]!;
    portText = v6[2]!;
  } else if (/^\d+$/.test(s)) {
    host = "127.0.0.1";
    portText = s;
  } else {
    const i = s.lastIndexOf(":");
    if (i < 0 || s.indexOf(":") !== i) throw new UsageError(`invalid address "${text}"`, "use HOST:PORT, e.g. 127.0.0.1:8787 or [::1]:0");
    host = s.slice(0, i) || "127.0.0.1";
    portText = s.slice(i + 1);
  }
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`invalid port in "${text}"`, "ports are 0-65535 (0 = any free port)");
  return { host, port };
}

/** `host:port` with IPv6 literals bracketed, as written to port files and URLs. */
export function formatHostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

export { isLoopbackHost };

/**
 * Who a peer address is, for rate limiting: all of loopback is this one
 * machine (127.0.0.2 is as much "us" as 127.0.0.1), an IPv4-mapped address is
 * its IPv4 address, and an IPv6 client owns its whole /64.
 */
export function clientKey(address: string): string {
  const a = address.toLowerCase().replace(/%.*$/, "");
  if (isLoopbackHost(a)) return "loopback";
  if (a.startsWith("::ffff:") && isIP(a.slice(7)) === 4) return a.slice(7);
  if (isIP(a) !== 6) return a;
  const [head = "", tail] = a.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t];
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}

export function isWildcardHost(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** Split a Host header value into its name (brackets stripped, lower-cased). */
export function hostHeaderName(value: string): string {
  const v = value.trim().toLowerCase();
  if (v.startsWith("[")) return v.slice(1, v.indexOf("]") > 0 ? v.indexOf("]") : undefined);
  const i = v.lastIndexOf(":");
  return i >= 0 && v.indexOf(":") === i ? v.slice(0, i) : v;
}

/** Names a browser may legitimately send in `Host` for a listener on `bound`. */
export function allowedHostNames(bound: string, publicHosts: readonly string[]): Set<string> {
  const out = new Set<string>(["localhost", "127.0.0.1", "::1"]);
  out.add(bound.toLowerCase().replace(/^\[|\]$/g, ""));
  if (isWildcardHost(bound)) {
    // A wildcard listener is reached through any of this machine's addresses.
    for (const list of Object.values(networkInterfaces())) for (const ni of list ?? []) out.add(ni.address.toLowerCase());
  }
  for (const h of publicHosts) out.add(hostHeaderName(h));
  return out;
}
