/**
 * Bun reports every failed TCP connect as ECONNREFUSED, even when the kernel
 * said "No route to host" or "Network is unreachable" (a link that is down, a
 * laptop off the network). Telling the user "refused" sends them to check sshd
 * when the network is the problem, so ask the routing table before believing it.
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
export async function routeFailure(host: string): Promise<"EHOSTUNREACH" | "ENETUNREACH" | null> {
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
    process.platform === "linux"
      ? await run("ip", ["route", "get", addr])
      : process.platform === "darwin"
        ? await run("/sbin/route", ["-n", "get", addr])
        : "";
  if (/network is unreachable/i.test(out)) return "ENETUNREACH";
  if (/no route to host|unreachable|not in table/i.test(out)) return "EHOSTUNREACH";
  return null;
}
