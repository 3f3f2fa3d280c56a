/**
 * Which network addresses web_fetch may reach. Loopback, private, link-local
 * (cloud metadata lives there), carrier-grade NAT, unique-local, site-local,
 * multicast, documentation, benchmarking, reserved and unspecified addresses
 * are refused unless the user config allows them (`[web_fetch] allow_private
 * = true`): a page the model fetches must not become a way into the user's
 * own network (SSRF).
 *
 * Addresses are judged as bytes, never as text: an IPv6 address is parsed
 * into its 16 bytes, and every IPv6 form that carries an IPv4 address
 * (IPv4-mapped, -translated and -compatible, NAT64, 6to4, Teredo) is judged
 * by that IPv4 address too. IPv6 outside global unicast (2000::/3) is refused
 * as reserved, so a prefix nobody listed here fails closed.
 */

/** An address as its bytes: 4 for IPv4, 16 for IPv6; null when the text is neither. */
export function parseIp(text: string): Uint8Array | null {
  let s = text.trim().toLowerCase();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  return parseV4(s) ?? parseV6(s);
}

function parseV4(s: string): Uint8Array | null {
  const parts = s.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return Uint8Array.from(parts.map(Number));
}

function parseV6(s: string): Uint8Array | null {
  if (!s.includes(":")) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const words: number[] = [];
  const push = (list: string[], last: boolean): boolean => {
    for (let i = 0; i < list.length; i++) {
      const g = list[i]!;
      if (last && i === list.length - 1 && g.includes(".")) {
        const v4 = parseV4(g);
        if (!v4) return false;
        words.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-f]{1,4}$/.test(g)) words.push(parseInt(g, 16));
      else return false;
    }
    return true;
  };
  if (!push(head, halves.length === 1)) return null;
  const headWords = words.length;
  if (!push(tail, true)) return null;
  const tailWords = words.length - headWords;
  if (halves.length === 1 ? words.length !== 8 : words.length > 7) return null;
  const all = [...words.slice(0, headWords), ...Array<number>(8 - words.length).fill(0), ...words.slice(headWords, headWords + tailWords)];
  const bytes = new Uint8Array(16);
  all.forEach((w, i) => ((bytes[2 * i] = w >> 8), (bytes[2 * i + 1] = w & 255)));
  return bytes;
}

const dotted = (b: ArrayLike<number>) => Array.from(b).join(".");

/** Why an IPv4 address (4 bytes) is not public, as "a … address", or null. */
function v4Reason(b: Uint8Array): string | null {
  const [x, y, z] = [b[0]!, b[1]!, b[2]!];
  if (x === 0) return "an unspecified (\"this network\") address";
  if (x === 127) return "a loopback address";
  if (x === 10 || (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168)) return "a private address";
  if (x === 169 && y === 254) return "a link-local address";
  if (x === 100 && y >= 64 && y <= 127) return "a carrier-grade NAT address";
  if (x === 192 && y === 0 && z === 0) return "an IETF protocol assignment address";
  if ((x === 192 && y === 0 && z === 2) || (x === 198 && y === 51 && z === 100) || (x === 203 && y === 0 && z === 113)) return "a documentation address";
  if (x === 192 && y === 88 && z === 99) return "a 6to4 relay anycast address";
  if (x === 198 && (y === 18 || y === 19)) return "a benchmarking address";
  if (x >= 224 && x <= 239) return "a multicast address";
  if (x >= 240) return "a reserved or broadcast address";
  return null;
}

const zero = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((n) => n === 0);
const starts = (b: Uint8Array, prefix: number[]) => prefix.every((n, i) => b[i] === n);

/** The IPv4 address an IPv6 form carries, judged: its reason with the form named, or null when it is public. */
function embedded(v4: Uint8Array, form: string): string | null {
  const why = v4Reason(v4);
  return why ? `${why} (${dotted(v4)} in ${form} IPv6 form)` : null;
}

/** Why an IPv6 address (16 bytes) is not public, as "a … address", or null. */
function v6Reason(b: Uint8Array): string | null {
  const w = (i: number) => (b[2 * i]! << 8) | b[2 * i + 1]!;
  if (zero(b, 0, 16)) return "an unspecified address";
  if (zero(b, 0, 15) && b[15] === 1) return "a loopback address";
  // ::ffff:a.b.c.d reaches a.b.c.d itself: judged as that address.
  if (zero(b, 0, 10) && w(5) === 0xffff) return embedded(b.subarray(12), "IPv4-mapped");
  if (zero(b, 0, 8) && w(4) === 0xffff && w(5) === 0) return embedded(b.subarray(12), "IPv4-translated") ?? "a reserved address (IPv4-translated)";
  if (zero(b, 0, 12)) return embedded(b.subarray(12), "IPv4-compatible") ?? "a reserved address (deprecated IPv4-compatible)";
  if (starts(b, [0x00, 0x64, 0xff, 0x9b]) && zero(b, 4, 12)) return embedded(b.subarray(12), "NAT64");
  if (starts(b, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) return "a local-use NAT64 address (64:ff9b:1::/48)";
  if (w(0) === 0x0100 && zero(b, 2, 8)) return "a discard-only address (100::/64)";
  if (w(0) === 0x2001 && w(1) === 0x0db8) return "a documentation address (2001:db8::/32)";
  if (w(0) === 0x2001 && w(1) === 0x0002 && w(2) === 0) return "a benchmarking address (2001:2::/48)";
  if (w(0) === 0x2001 && (w(1) & 0xffe0) === 0x0020) return "an ORCHIDv2 address (2001:20::/28), not routable";
  if (w(0) === 0x2001 && (w(1) & 0xfff0) === 0x0010) return "an ORCHID address (2001:10::/28), not routable";
  if (w(0) === 0x2001 && w(1) === 0) {
    // Teredo: the server's IPv4 in bytes 4-7, the client's in the last 4 bytes, inverted.
    const client = b.subarray(12).map((n) => n ^ 0xff);
    return embedded(b.subarray(4, 8), "Teredo (server)") ?? embedded(client, "Teredo (client)");
  }
  if (w(0) === 0x2002) return embedded(b.subarray(2, 6), "6to4");
  if ((w(0) & 0xfff0) === 0x3ff0) return "a documentation address (3fff::/20)";
  if ((b[0]! & 0xfe) === 0xfc) return "a unique-local address";
  if ((w(0) & 0xffc0) === 0xfe80) return "a link-local address";
  if ((w(0) & 0xffc0) === 0xfec0) return "a site-local address";
  if (b[0] === 0xff) return "a multicast address";
  if ((b[0]! & 0xe0) !== 0x20) return "a reserved address (outside global unicast 2000::/3)";
  return null;
}

/** Why an address is not public, as "a … address" (with the IPv4 address an IPv6 form carries), or null when it is. */
export function nonPublicReason(addr: string): string | null {
  const b = parseIp(addr);
  if (!b) return "not an IP address";
  return b.length === 4 ? v4Reason(b) : v6Reason(b);
}
