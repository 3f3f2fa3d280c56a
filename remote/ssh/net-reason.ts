/**
 * Bun reports every failed TCP connect as ECONNREFUSED, even when the kernel
 * said "No route to host" or "Network is unreachable" (a link that is down, a
 * laptop off the network). Telling the user "refused" sends them to check sshd
 * when the network is the problem, so ask the routing table (and, for a host on
 * the local network, the neighbour table) before believing it.
 */
import { execFile } from "node:child_process";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 1500 }, (_err, stdout, stderr) => resolve(`${stdout}\n${stderr}`));
  });
}

/**
 * For a connect that failed with ECONNREFUSED: the errno the kernel would have
 * given if the route is the reason (EHOSTUNREACH, ENETUNREACH), else null (it
 * really was refused, or we cannot tell).
 */
export async function routeFailure(host: string, exec: (cmd: string, args: string[]) => Promise<string> = run, platform: NodeJS.Platform = process.platform): Promise<"EHOSTUNREACH" | "ENETUNREACH" | null> {
  let addr = host.replace(/^\[|\]$/g, "");
  if (!isIP(addr)) {
    try {
      addr = (await lookup(addr)).address;
    } catch {
      return null;
    }
  }
  if (addr === "127.0.0.1" || addr === "::1") return null;
  const out =
    platform === "linux"
      ? await exec("ip", ["route", "get", addr])
      : platform === "darwin"
        ? await exec("/sbin/route", ["-n", "get", addr])
        : "";
  const verdict = routeVerdict(out);
  if (verdict || platform !== "linux") return verdict;
  // A route exists, but the next hop (the host itself on the local network, or the gateway)
  // never answered ARP/ND: the kernel said EHOSTUNREACH after ~3 s, not "refused".
  const hop = nextHop(out, addr);
  if (!hop) return null;
  return neighbourFailed(await exec("ip", ["neigh", "show", hop.addr, ...(hop.dev ? ["dev", hop.dev] : [])])) ? "EHOSTUNREACH" : null;
}

/** What `ip route get` / `route -n get` output says about reaching the address, if anything. */
export function routeVerdict(out: string): "EHOSTUNREACH" | "ENETUNREACH" | null {
  if (/network is unreachable/i.test(out)) return "ENETUNREACH";
  if (/no route to host|unreachable|not in table/i.test(out)) return "EHOSTUNREACH";
  return null;
}

/** The neighbour a packet to `addr` goes to first, from `ip route get` output: the gateway, or `addr` on-link. */
export function nextHop(routeOut: string, addr: string): { addr: string; dev: string | null } | null {
  const line = routeOut.split("\n").find((l) => l.trim() !== "" && !/^\s/.test(l));
  if (!line) return null;
  const via = /\bvia\s+(\S+)/.exec(line)?.[1];
  const dev = /\bdev\s+(\S+)/.exec(line)?.[1] ?? null;
  if (dev === "lo" || /^(local|broadcast|multicast)\b/.test(line)) return null;
  return { addr: via ?? addr, dev };
}

/** `ip neigh show ADDR` output: resolution of that neighbour failed (no ARP/ND answer). */
export const neighbourFailed = (out: string): boolean => /\bFAILED\b/.test(out);
