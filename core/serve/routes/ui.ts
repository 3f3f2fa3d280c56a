// The browser UI: the HTML shell (sign-in page when not authenticated), its
// embedded script and stylesheet, and the favicon.
import { uiAssetGzip, uiAssetPlain, uiAssets, type UiAssetKind } from "../ui/assets.ts";
import type { ServeApp, ServeDeps } from "./context.ts";
import { authChecker } from "./guards.ts";
import { CSP, noContent, withHeaders } from "./respond.ts";

/** Paths that serve the UI's HTML (GET and HEAD). */
export const isPagePath = (path: string): boolean =>
  path === "/" || path === "/login" || path === "/setup" || /^\/sessions\/[^/]+$/.test(path);

/** The UI's script and stylesheet: embedded gzipped, sent as they are (tunnels are often slow). */
function asset(req: Request, kind: UiAssetKind): Response {
  const type = kind === "js" ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
  const headers: Record<string, string> = { "content-type": type, vary: "accept-encoding" };
  let body = uiAssetPlain;
  if (/\bgzip\b/.test(req.headers.get("accept-encoding") ?? "")) {
    body = uiAssetGzip;
    headers["content-encoding"] = "gzip";
  }
  return withHeaders(new Response(body(kind), { headers }), { "cache-control": "public, max-age=31536000, immutable" });
}

/** Any method, no credential: browsers ask for it unprompted. */
export function faviconRoute(app: ServeApp): void {
  app.all("/favicon.ico", () => noContent());
}

export function assetRoutes(app: ServeApp): void {
  app.get("/assets/app.js", (c) => asset(c.req.raw, "js"));
  app.get("/assets/app.css", (c) => asset(c.req.raw, "css"));
}

export function pageRoutes(app: ServeApp, deps: ServeDeps): void {
  const isAuthed = authChecker(deps);
  const page = (authed: boolean): Response => {
    const html = uiAssets.html
      .replaceAll("{{DIGEST}}", uiAssets.digest)
      .replaceAll("{{AUTH_MODE}}", deps.auth.mode)
      .replaceAll("{{AUTHED}}", String(authed));
    return withHeaders(new Response(html, { status: authed ? 200 : 401, headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": CSP } }));
  };
  app.on("GET", ["/", "/login", "/setup", "/sessions/:id"], (c) => page(isAuthed(c.req.raw)));
}
