import { allowedHostNames, clientKey, hostHeaderName } from "./addr.ts";

/** What the guard reads of a request: its headers (a fetch `Request`, or a node request through `nodeHeaders`). */
export interface HeaderSource {
  headers: { get(name: string): string | null };
}

/** A node:http request's headers seen as a fetch `Headers` (repeated headers joined with ", "). */
export function nodeHeaders(headers: Record<string, string | string[] | undefined>): HeaderSource {
  return { headers: { get: (name) => { const v = headers[name.toLowerCase()]; return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v; } } };
}

/**
 * Request-level defences that run before routing: DNS-rebinding (Host),
 * cross-site writes (Origin) and form-post CSRF (Content-Type). Each returns
 * the status to answer with, or 0 to let the request through.
 */
export class RequestGuard {
  private readonly allowed: Set<string>;

  constructor(boundHost: string, publicHosts: readonly string[], private readonly behindProxy: boolean) {
    this.allowed = allowedHostNames(boundHost, publicHosts);
  }

  /** The host the client thinks it is talking to (X-Forwarded-Host only behind a trusted proxy). */
  effectiveHost(req: HeaderSource): string {
    const fwd = this.behindProxy ? req.headers.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
    return fwd || req.headers.get("host") || "";
  }

  /** True when the client reached us over TLS (only knowable behind a trusted proxy). */
  secure(req: HeaderSource): boolean {
    return this.behindProxy && req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
  }

  /**
   * The client's address for rate limiting. Behind the proxy, only the last
   * X-Forwarded-For entry is the proxy's own word: everything before it was
   * sent by the client and can be anything, so keying on it would let one
   * client mint a fresh rate-limit bucket per request. Addresses are
   * folded by clientKey (loopback is one client, IPv6 by /64).
   */
  clientId(req: HeaderSource, peer: string | undefined): string {
    if (this.behindProxy) {
      const fwd = req.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
      if (fwd) return clientKey(fwd);
    }
    return peer ? clientKey(peer) : "unknown";
  }

  /** 421 when the Host header names something we are not (DNS rebinding). */
  hostStatus(req: HeaderSource): number {
    const host = this.effectiveHost(req);
    if (!host) return 421;
    return this.allowed.has(hostHeaderName(host)) ? 0 : 421;
  }

  /** 403 when a browser says the request comes from another origin. */
  originStatus(req: HeaderSource): number {
    const origin = req.headers.get("origin");
    if (origin === null) return 0;
    let o: URL;
    try {
      o = new URL(origin);
    } catch {
      return 403;
    }
    if (o.host.toLowerCase() !== this.effectiveHost(req).toLowerCase()) return 403;
    const scheme = this.secure(req) ? "https:" : "http:";
    return this.behindProxy && !req.headers.get("x-forwarded-proto") ? 0 : o.protocol === scheme ? 0 : 403;
  }

  /** 415 unless the body is declared JSON (HTML forms cannot send that cross-site without a preflight). */
  contentTypeStatus(req: HeaderSource): number {
    const ct = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    return ct === "application/json" ? 0 : 415;
  }
}

export const isStateChanging = (method: string): boolean => !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());
