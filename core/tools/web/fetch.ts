/**
 * One bounded HTTP(S) GET for web_fetch: http/https only, every address the
 * name resolves to checked before connecting and the connection pinned to
 * the checked address (no DNS rebinding between check and connect), a size
 * cap, an overall deadline, and redirects followed only within the same
 * host (a redirect elsewhere is reported, so the permission layer judges the
 * new domain on the next call).
 */
// node:http, node:https, node:net and node:dns are loaded by the first fetch:
// every session carries this tool, and loading them costs a one-request run
// several ms of CPU (docs/how-fast.md).
import type { IncomingMessage } from "node:http";
import { nonPublicReason } from "./addresses.ts";

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** The user config allows loopback/private/link-local targets. */
  allowPrivate: boolean;
  /** Name resolution (default: the system's, every address); tests give their own answers. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

const systemResolve = async (host: string) => (await import("node:dns/promises")).lookup(host, { all: true, verbatim: true });

export type FetchOutcome =
  | { kind: "ok"; url: string; status: number; contentType: string; body: Buffer; truncated: boolean }
  | { kind: "redirect_elsewhere"; url: string; location: string }
  | { kind: "refused"; reason: string };

export class FetchRefused extends Error {}

export function checkUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new FetchRefused(`not a valid URL: ${raw}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new FetchRefused(`only http and https URLs can be fetched (got ${u.protocol.replace(/:$/, "")})`);
  if (u.username || u.password) throw new FetchRefused("URLs with credentials (user:pass@) are refused");
  return u;
}

async function resolveChecked(host: string, limits: FetchLimits): Promise<{ address: string; family: number }> {
  const { allowPrivate } = limits;
  const bare = host.replace(/^\[|\]$/g, "");
  const { isIP } = await import("node:net");
  const addrs = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await (limits.resolve ?? systemResolve)(bare).catch((e) => {
    throw new FetchRefused(`cannot resolve ${host}: ${(e as Error).message}`);
  });
  if (addrs.length === 0) throw new FetchRefused(`cannot resolve ${host}`);
  if (!allowPrivate) {
    for (const a of addrs) {
      const why = nonPublicReason(a.address);
      if (why) throw new FetchRefused(`${host} resolves to ${a.address}, ${why}; web_fetch reaches only public addresses unless the user config sets [web_fetch] allow_private = true`);
    }
  }
  return addrs[0]!;
}

async function getOnce(u: URL, pinned: { address: string; family: number }, limits: FetchLimits, signal: AbortSignal): Promise<{ res: IncomingMessage; body: Buffer; truncated: boolean }> {
  const { request } = u.protocol === "https:" ? await import("node:https") : await import("node:http");
  return new Promise((resolve, reject) => {
    const req = request(
      u,
      {
        method: "GET",
        signal,
        headers: { "user-agent": "reasonix-web-fetch", accept: "text/html,text/markdown,text/plain,application/json,application/pdf;q=0.8,*/*;q=0.5", "accept-encoding": "identity" },
        lookup: ((_h: string, opts: any, cb: any) => (opts?.all ? cb(null, [pinned]) : cb(null, pinned.address, pinned.family))) as any,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400) {
          res.resume();
          resolve({ res, body: Buffer.alloc(0), truncated: false });
          return;
        }
        res.on("data", (c: Buffer) => {
          if (truncated) return;
          const room = limits.maxBytes - size;
          if (c.length > room) {
            chunks.push(c.subarray(0, room));
            size += room;
            truncated = true;
            req.destroy();
            resolve({ res, body: Buffer.concat(chunks), truncated });
            return;
          }
          chunks.push(c);
          size += c.length;
        });
        res.on("end", () => resolve({ res, body: Buffer.concat(chunks), truncated }));
        res.on("error", (e) => (truncated ? undefined : reject(e)));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

export async function boundedFetch(raw: string, limits: FetchLimits, outer: AbortSignal): Promise<FetchOutcome> {
  const signal = AbortSignal.any([outer, AbortSignal.timeout(limits.timeoutMs)]);
  let u: URL;
  try {
    u = checkUrl(raw);
  } catch (e) {
    if (e instanceof FetchRefused) return { kind: "refused", reason: e.message };
    throw e;
  }
  for (let hop = 0; ; hop++) {
    try {
      const pinned = await resolveChecked(u.hostname, limits);
      const { res, body, truncated } = await getOnce(u, pinned, limits, signal);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        if (hop >= limits.maxRedirects) return { kind: "refused", reason: `more than ${limits.maxRedirects} redirects (last: ${u.href})` };
        const next = checkUrl(new URL(res.headers.location, u).href);
        if (next.hostname !== u.hostname) return { kind: "redirect_elsewhere", url: u.href, location: next.href };
        u = next;
        continue;
      }
      return { kind: "ok", url: u.href, status, contentType: String(res.headers["content-type"] ?? ""), body, truncated };
    } catch (e) {
      if (e instanceof FetchRefused) return { kind: "refused", reason: e.message };
      if (signal.aborted && !outer.aborted) return { kind: "refused", reason: `no complete answer from ${u.host} within ${limits.timeoutMs / 1000} s` };
      throw e;
    }
  }
}
