/**
 * One small HTTP/1.1 request to a remote loopback address through an SSH
 * direct-tcpip channel: how the supervisor checks the serve's /healthz and
 * /api/status without opening any local port.
 */
import type { Client, ClientChannel } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";

export interface HostPort {
  host: string;
  port: number;
}

export function parseHostPort(text: string): HostPort {
  const s = text.trim();
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(s);
  const m = v6 ?? /^([^:]+):(\d+)$/.exec(s);
  if (!m) throw new ReasonixError("bad_addr", `"${text}" is not HOST:PORT`);
  return { host: m[1]!, port: Number(m[2]) };
}

export function openChannel(client: Client, to: HostPort, from: HostPort = { host: "127.0.0.1", port: 0 }): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    try {
      client.forwardOut(from.host, from.port, to.host, to.port, (err, ch) => (err ? reject(err) : resolve(ch)));
    } catch (e) {
      reject(e); // ssh2 throws synchronously when the client is no longer connected
    }
  });
}

export interface HttpResult {
  status: number;
  body: string;
}

export async function httpViaSsh(
  client: Client,
  to: HostPort,
  path: string,
  opts: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const ch = await openChannel(client, to);
  const headers = { host: `${to.host}:${to.port}`, connection: "close", ...opts.headers };
  const head = `GET ${path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      ch.destroy();
      reject(new ReasonixError("http_timeout", `no answer from ${to.host}:${to.port}${path} within ${opts.timeoutMs ?? 10_000} ms`));
    }, opts.timeoutMs ?? 10_000);
    ch.on("data", (d: Buffer) => chunks.push(d));
    ch.on("error", (e: Error) => {
      clearTimeout(timer);
      reject(e);
    });
    ch.on("close", () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString("utf8");
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
      if (!m) return reject(new ReasonixError("http_bad_response", `no HTTP response from ${to.host}:${to.port}${path}`));
      const sep = raw.indexOf("\r\n\r\n");
      const headText = raw.slice(0, sep).toLowerCase();
      let body = sep >= 0 ? raw.slice(sep + 4) : "";
      if (/\ntransfer-encoding:\s*chunked/.test(headText)) body = dechunk(body);
      resolve({ status: Number(m[1]), body });
    });
    ch.end(head);
  });
}

function dechunk(s: string): string {
  let out = "";
  let i = 0;
  while (i < s.length) {
    const nl = s.indexOf("\r\n", i);
    if (nl < 0) break;
    const size = parseInt(s.slice(i, nl), 16);
    if (!size) break;
    out += s.slice(nl + 2, nl + 2 + size);
    i = nl + 2 + size + 2;
  }
  return out;
}
