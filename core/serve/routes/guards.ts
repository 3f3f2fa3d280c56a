// The request-level defences, as middleware that runs before any route:
// DNS rebinding (Host), malformed escapes, cross-site writes (Origin),
// form-post CSRF (Content-Type), and the credential every /api/ route needs.
import type { MiddlewareHandler } from "hono";
import { COOKIE_NAME, parseCookies, safeEqual } from "../auth.ts";
import { isStateChanging } from "../guard.ts";
import type { ServeDeps, ServeEnv } from "./context.ts";
import { noRoute, problem } from "./respond.ts";

type Guard = MiddlewareHandler<ServeEnv>;

const decodablePath = (path: string): boolean => {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
};

/** A bearer token (token mode) or a signed session cookie; always true with auth "none". */
export function authChecker({ auth, signer }: ServeDeps): (req: Request) => boolean {
  return (req) => {
    if (auth.mode === "none") return true;
    if (auth.mode === "token") {
      const h = req.headers.get("authorization");
      if (h && /^bearer /i.test(h) && safeEqual(h.slice(7).trim(), auth.token)) return true;
    }
    return signer.verify(parseCookies(req.headers.get("cookie")).get(COOKIE_NAME));
  };
}

/** Host (421), %-escapes (400, checked once so no handler trips over one), and for writes Origin (403) and Content-Type (415). */
export function requestGuard({ guard }: ServeDeps): Guard {
  return async (c, next) => {
    const req = c.req.raw;
    if (guard.hostStatus(req)) return problem(421, "misdirected", "this server does not answer to that Host name");
    if (!decodablePath(c.env.url.pathname)) return problem(400, "bad_path", "malformed %-escape in the URL path");
    if (isStateChanging(req.method)) {
      if (guard.originStatus(req)) return problem(403, "cross_origin", "cross-origin requests are refused");
      if (guard.contentTypeStatus(req)) return problem(415, "json_required", "state-changing requests must send Content-Type: application/json");
    }
    await next();
  };
}

/** Every /api/ path (known or not) answers 401 to a client without the credential. */
export function apiAuth(deps: ServeDeps): Guard {
  const isAuthed = authChecker(deps);
  return async (c, next) => {
    if (c.env.url.pathname.startsWith("/api/") && !isAuthed(c.req.raw)) return problem(401, "unauthorized", "authentication required");
    await next();
  };
}

/**
 * HEAD is answered only where it always was (the pages; /healthz and
 * /favicon.ico are routed before this): every other HEAD is an unknown route,
 * not the GET route's headers.
 */
export function headOnly(allowed: (path: string) => boolean): Guard {
  return async (c, next) => {
    if (c.env.head && !allowed(c.env.url.pathname)) return noRoute("HEAD", c.env.url.pathname);
    await next();
  };
}
