/**
 * Add-time checks for `reasonix remote add`: a host that can never resolve, a
 * user name a shell would mangle or a bad port is refused when it is typed,
 * not at the first connect. Also spots a `--workspace` the local shell has
 * already expanded (`~/app` → /home/me/app) before it reaches us.
 */
import { isIPv4, isIPv6 } from "node:net";
import { homedir } from "node:os";
import { UsageError } from "../../core/errors.ts";
import type { HostSpec } from "./spec.ts";

const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
/** Login names: POSIX portable characters plus '@' and '+' (user@domain logins); never a leading '-'. */
const USER = /^[A-Za-z0-9_][A-Za-z0-9._@+-]{0,63}$/;

/** Why HOST is not a DNS name, an IPv4 address or an IPv6 literal; null when it is one. */
export function hostProblem(host: string): string | null {
  if (isIPv4(host)) return null;
  if (host.includes(":")) return isIPv6(host) ? null : "not a valid IPv6 address (write IPv6 in brackets: [2001:db8::1]:22)";
  if (/^[\d.]+$/.test(host)) return "not a valid IPv4 address";
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (name.length === 0 || name.length > 253) return "not a host name";
  const bad = name.split(".").find((l) => !LABEL.test(l));
  if (bad !== undefined) return bad === "" ? "not a valid host name: an empty label (two dots in a row?)" : `not a valid host name: label "${bad}" may only have letters, digits, '-' and '_' (at most 63)`;
  return null;
}

/**
 * Check a parsed `[USER@]HOST[:PORT]` as typed (`raw`, for the message);
 * throws a UsageError naming the bad part.
 */
export function checkTarget(spec: HostSpec, raw: string, what = "target"): void {
  if (/[[\]]/.test(spec.host)) {
    throw new UsageError(`${what} "${raw}": unbalanced "[" or "]" (IPv6 goes in brackets: [2001:db8::1]:22)`);
  }
  const problem = hostProblem(spec.host);
  if (problem) throw new UsageError(`${what} "${raw}": host "${spec.host}" is ${problem}`, "expected [USER@]HOST[:PORT], HOST a DNS name, an IPv4 address or a bracketed IPv6 address");
  if (spec.user !== undefined && !USER.test(spec.user)) {
    throw new UsageError(`${what} "${raw}": user "${spec.user}" is not a valid login name`, "letters, digits, '.', '_', '-', '@', '+'; not starting with '-'");
  }
  if (spec.port !== undefined && !(Number.isInteger(spec.port) && spec.port >= 1 && spec.port <= 65535)) {
    throw new UsageError(`${what} "${raw}": port must be 1-65535`);
  }
}

/**
 * A workspace under the *local* home was most likely `~/…` expanded by the
 * local shell; the remote home is somewhere else. Returns the warning, or null.
 */
export function workspaceWarning(workspace: string, localHome = process.env.HOME || homedir()): string | null {
  const home = localHome.replace(/\/+$/, "");
  if (!home || home === "/") return null;
  if (workspace !== home && !workspace.startsWith(`${home}/`)) return null;
  const rest = workspace.slice(home.length).replace(/^\//, "");
  return `--workspace ${workspace} is under your local home (${home}): did you mean '~/${rest}'? quote the ~ so the remote home is used`;
}
