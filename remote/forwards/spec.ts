/**
 * Port-forward specs as typed on the command line (`8080`, `8080:host:80`,
 * `bind:8080:host:80`, IPv6 in brackets) and as stored in the config
 * (`bind = "127.0.0.1:8080"`, `target = "localhost:80"`).
 */
import { UsageError } from "../../core/errors.ts";
import type { ForwardConfig } from "../hosts/types.ts";

export type ForwardType = ForwardConfig["type"];

export interface Endpoint {
  host: string;
  port: number;
}

export interface Forward {
  type: ForwardType;
  bind: Endpoint;
  target: Endpoint;
}

/** Split on colons outside [brackets]. */
function fields(spec: string): string[] {
  const out: string[] = [];
  let cur = "";
  let depth = 0;
  for (const ch of spec) {
    if (ch === "[") depth++;
    if (ch === "]") depth--;
    if (ch === ":" && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((f) => f.replace(/^\[(.*)\]$/, "$1"));
}

function port(text: string, spec: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535) throw new UsageError(`invalid port "${text}" in forward spec "${spec}"`, "ports are 1-65535");
  return n;
}

export function parseForwardSpec(type: ForwardType, spec: string): Forward {
  const f = fields(spec.trim());
  const loop = "127.0.0.1";
  switch (f.length) {
    case 1:
      return { type, bind: { host: loop, port: port(f[0]!, spec) }, target: { host: loop, port: port(f[0]!, spec) } };
    case 3:
      return { type, bind: { host: loop, port: port(f[0]!, spec) }, target: { host: f[1]! || loop, port: port(f[2]!, spec) } };
    case 4:
      return { type, bind: { host: f[0]! || loop, port: port(f[1]!, spec) }, target: { host: f[2]! || loop, port: port(f[3]!, spec) } };
    default:
      throw new UsageError(`invalid forward spec "${spec}"`, "use PORT, PORT:HOST:HOSTPORT or BIND:PORT:HOST:HOSTPORT");
  }
}

export const formatEndpoint = (e: Endpoint): string => (e.host.includes(":") ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`);

export function parseEndpoint(text: string, what: string): Endpoint {
  const f = fields(text.trim());
  if (f.length === 1) return { host: "127.0.0.1", port: port(f[0]!, text) };
  if (f.length !== 2) throw new UsageError(`invalid ${what} "${text}": expected HOST:PORT`);
  return { host: f[0]! || "127.0.0.1", port: port(f[1]!, text) };
}

export const toConfig = (f: Forward): ForwardConfig => ({ type: f.type, bind: formatEndpoint(f.bind), target: formatEndpoint(f.target) });

export function fromConfig(c: ForwardConfig): Forward {
  if (c.type !== "local" && c.type !== "remote") throw new UsageError(`forward type must be "local" or "remote", got "${c.type}"`);
  return { type: c.type, bind: parseEndpoint(c.bind, "forward bind"), target: parseEndpoint(c.target, "forward target") };
}

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h === "::1" || /^127\./.test(h);
}

/** `-L 127.0.0.1:8080 -> localhost:80` */
export const describeForward = (f: Forward): string =>
  `${f.type === "local" ? "-L" : "-R"} ${formatEndpoint(f.bind)} -> ${formatEndpoint(f.target)}`;

/** Warning text for a bind address other machines can reach, or null. */
export function exposureWarning(f: Forward): string | null {
  if (isLoopback(f.bind.host)) return null;
  const side = f.type === "local" ? "this machine" : "the remote host (needs GatewayPorts there)";
  return `${describeForward(f)} binds ${f.bind.host}, reachable from other machines via ${side}`;
}
