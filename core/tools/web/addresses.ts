/**
 * Which network addresses web_fetch may reach. Loopback, private, link-local
 * (cloud metadata lives there), carrier-grade NAT, unique-local, multicast
 * and unspecified addresses are refused unless the user config allows them
 * (`[web_fetch] allow_private = true`): a page the model fetches must not
 * become a way into the user's own network (SSRF).
 */
import { isIP } from "node:net";

function v4(addr: string): number[] | null {
  const p = addr.split(".").map(Number);
  return p.length === 4 && p.every((n) => Number.isInteger(n) && n >= 0 && n <= 255) ? p : null;
}

/** Why an address is not public, or null when it is. */
export function nonPublicReason(addr: string): string | null {
  let a = addr.toLowerCase().replace(/^\[|\]$/g, "");
  const zone = a.indexOf("%");
  if (zone >= 0) a = a.slice(0, zone);
  // IPv4-mapped/compatible IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address.
  const mapped = /^(?:0*:)*(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (isIP(a) === 6 && mapped) a = mapped[1]!;
  if (isIP(a) === 4) {
    const [x, y] = v4(a)!;
    if (x === 127) return "loopback";
    if (x === 0) return "unspecified";
    if (x === 10 || (x === 172 && y! >= 16 && y! <= 31) || (x === 192 && y === 168)) return "private";
    if (x === 169 && y === 254) return "link-local";
    if (x === 100 && y! >= 64 && y! <= 127) return "carrier-grade NAT";
    if (x! >= 224) return "multicast or reserved";
    if (x === 198 && (y === 18 || y === 19)) return "benchmarking";
    return null;
  }
  if (isIP(a) === 6) {
    if (a === "::1") return "loopback";
    if (a === "::") return "unspecified";
    const first = parseInt(a.split(":")[0] || "0", 16);
    if ((first & 0xfe00) === 0xfc00) return "unique-local";
    if ((first & 0xffc0) === 0xfe80) return "link-local";
    if ((first & 0xff00) === 0xff00) return "multicast";
    // NAT64 / 6to4 embedding a private IPv4 address.
    const tail = /(?:^64:ff9b::|^2002:)([0-9a-f]{1,4}):([0-9a-f]{1,4})/.exec(a);
    if (tail) {
      const n = (parseInt(tail[1]!, 16) << 16) | parseInt(tail[2]!, 16);
      return nonPublicReason([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join("."));
    }
    return null;
  }
  return "not an IP address";
}
