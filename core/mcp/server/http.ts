/**
 * `reasonix mcp serve --http ADDR`: the same tools over Streamable HTTP at
 * /mcp, one protocol session per client, every request authenticated with
 * `Authorization: Bearer <token>` (compared in constant time). Before that,
 * the Host and Origin rules of `reasonix serve` (core/serve/guard.ts): a Host
 * that is not this server (DNS rebinding) gets 421, a browser Origin that is
 * not its own origin 403.
 */
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { nodeHeaders, RequestGuard } from "../../serve/guard.ts";

export const newToken = () => randomBytes(24).toString("base64url");

function authorized(req: IncomingMessage, token: string): boolean {
  const h = req.headers.authorization ?? "";
  const given = Buffer.from(h.startsWith("Bearer ") ? h.slice(7) : "");
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 4 << 20) throw new Error("request body too large");
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

export async function serveHttp(o: { host: string; port: number; token: string; publicHosts?: readonly string[]; newServer(): Server }): Promise<{ url: string; http: HttpServer; close(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const guard = new RequestGuard(o.host, o.publicHosts ?? [], false);
  const http = createServer(async (req, res) => {
    const h = nodeHeaders(req.headers);
    if (guard.hostStatus(h)) return void res.writeHead(421).end(`Host "${h.headers.get("host") ?? ""}" is not this server (a DNS-rebinding attempt?); to reach it under another name, start it with --public-host NAME\n`);
    if (guard.originStatus(h)) return void res.writeHead(403).end(`requests from the page at ${h.headers.get("origin")} are not accepted (its Origin is not this server's)\n`);
    const u = new URL(req.url ?? "/", "http://x");
    if (u.pathname !== "/mcp") return void res.writeHead(404).end();
    if (!authorized(req, o.token)) return void res.writeHead(401, { "www-authenticate": 'Bearer realm="reasonix"' }).end("missing or wrong bearer token\n");
    try {
      const parsed = req.method === "POST" ? await body(req) : undefined;
      const id = req.headers["mcp-session-id"];
      let t = typeof id === "string" ? sessions.get(id) : undefined;
      if (!t) {
        if (req.method !== "POST" || typeof id === "string") return void res.writeHead(404).end("unknown session\n");
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, transport) });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await o.newServer().connect(transport);
        t = transport;
      }
      await t.handleRequest(req, res, parsed);
    } catch (e) {
      if (!res.headersSent) res.writeHead(400).end(`${(e as Error).message}\n`);
    }
  });
  await new Promise<void>((r) => http.listen(o.port, o.host, r));
  const port = (http.address() as AddressInfo).port;
  const host = o.host.includes(":") ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}/mcp`,
    http,
    async close() {
      for (const t of sessions.values()) await t.close().catch(() => {});
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
