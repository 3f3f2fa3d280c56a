/**
 * Test helper: a network namespace joined to the host by a veth pair, so a
 * test can run sshd "across a link" and cut that link for real
 * (`ip link set … down`). Names carry the pid and random bytes so concurrent
 * runs never collide; addresses are a random /30 inside 10.200.0.0/13 that
 * only exists between the two veth ends.
 */
import { execFileSync } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";

export interface NetnsLink {
  ns: string;
  hostIf: string;
  nsIf: string;
  hostAddr: string;
  nsAddr: string;
  /** Take the link down (both ends lose carrier). */
  cut(): void;
  restore(): void;
  /**
   * A silent drop further away: the namespace's end goes down, so whatever we send
   * is discarded without any error (no carrier loss reaches our sockets as an error,
   * no unreachable route). `undrop()` brings it back.
   */
  drop(): void;
  undrop(): void;
  /** Shape both directions to `mbit` Mbit/s with htb (a slow uplink and downlink). */
  shape(mbit: number): void;
  destroy(): void;
}

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "pipe", "pipe"] }).toString();

/** Why namespaces cannot be used here, or null. */
export function netnsUnavailable(): string | null {
  if (typeof process.getuid === "function" && process.getuid() !== 0) return "not running as root (ip netns needs CAP_NET_ADMIN)";
  const probe = `rxprobe${process.pid.toString(36)}${randomBytes(2).toString("hex")}`;
  try {
    ip("netns", "add", probe);
  } catch (e) {
    return `ip netns add failed: ${(e as { stderr?: Buffer }).stderr?.toString().trim() || (e as Error).message}`;
  }
  try {
    ip("netns", "del", probe);
  } catch {}
  return null;
}

const live = new Set<NetnsLink>();
process.on("exit", () => {
  for (const l of live) l.destroy();
});

export function createNetnsLink(): NetnsLink {
  const tag = `${process.pid.toString(36)}${randomBytes(2).toString("hex")}`.slice(-8);
  const ns = `rxns${tag}`;
  const hostIf = `rxh${tag}`;
  const nsIf = `rxn${tag}`;
  const net = `10.${200 + randomInt(8)}.${randomInt(256)}.${randomInt(64) * 4}`;
  const [a, b, c, d] = net.split(".").map(Number) as [number, number, number, number];
  const hostAddr = `${a}.${b}.${c}.${d + 1}`;
  const nsAddr = `${a}.${b}.${c}.${d + 2}`;
  let destroyed = false;
  let routed = false;
  const link: NetnsLink = {
    ns,
    hostIf,
    nsIf,
    hostAddr,
    nsAddr,
    cut: () => void ip("link", "set", hostIf, "down"),
    restore: () => void ip("link", "set", hostIf, "up"),
    drop: () => void ip("-n", ns, "link", "set", nsIf, "down"),
    undrop: () => void ip("-n", ns, "link", "set", nsIf, "up"),
    shape: (mbit: number) => {
      for (const pre of [[], ["-n", ns]]) {
        const dev = pre.length ? nsIf : hostIf;
        execFileSync("tc", [...pre, "qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "10", "r2q", "100"], { stdio: "pipe" });
        execFileSync("tc", [...pre, "class", "replace", "dev", dev, "parent", "1:", "classid", "1:10", "htb", "rate", `${mbit}mbit`, "ceil", `${mbit}mbit`], { stdio: "pipe" });
      }
    },
    destroy: () => {
      if (destroyed) return;
      destroyed = true;
      live.delete(link);
      if (routed) {
        try {
          ip("route", "del", "unreachable", `${net}/30`, "metric", "4242");
        } catch {}
      }
      try {
        ip("link", "del", hostIf); // removes the peer too
      } catch {}
      try {
        ip("netns", "del", ns);
      } catch {}
    },
  };
  live.add(link);
  try {
    ip("netns", "add", ns);
    ip("link", "add", hostIf, "type", "veth", "peer", "name", nsIf);
    ip("link", "set", nsIf, "netns", ns);
    ip("addr", "add", `${hostAddr}/30`, "dev", hostIf);
    ip("link", "set", hostIf, "up");
    ip("-n", ns, "addr", "add", `${nsAddr}/30`, "dev", nsIf);
    ip("-n", ns, "link", "set", nsIf, "up");
    ip("-n", ns, "link", "set", "lo", "up");
    // While the link is down its connected route is gone; without this, traffic for
    // the /30 would follow the default route off the machine. Unreachable = fail fast, stay local.
    ip("route", "add", "unreachable", `${net}/30`, "metric", "4242");
    routed = true;
  } catch (e) {
    link.destroy();
    throw e;
  }
  return link;
}
