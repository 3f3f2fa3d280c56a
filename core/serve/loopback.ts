/**
 * Whether a host names this machine's loopback. Its own module, without
 * node:net: the providers ask it for every model request's timeouts, and
 * loading node:net costs a one-request run about a millisecond of CPU.
 */

/** A dotted-quad IPv4 address, as node:net's isIP accepts it (no leading zeros). */
const V4_SEG = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
const IPV4 = new RegExp(`^(?:${V4_SEG}\\.){3}${V4_SEG}$`);

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (IPV4.test(h)) return h.startsWith("127.");
  if (h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (h.startsWith("::ffff:")) return h.slice(7).startsWith("127.");
  return false;
}
