// The serve HTTP API as one Hono app. Order is the order checks run in:
// the health probe, then the request guards, the sign-in routes and public
// files, the /api/ credential check, then the resources, then the pages.
import { Hono } from "hono";
import type { ServeApp, ServeDeps, ServeEnv } from "./context.ts";
import { eventRoutes } from "./events.ts";
import { apiAuth, headOnly, requestGuard } from "./guards.ts";
import { loginRoutes } from "./login.ts";
import { memoryRoutes } from "./memory.ts";
import { mcpRoutes } from "./mcp.ts";
import { errorResponse, json, noRoute } from "./respond.ts";
import { queueRoutes } from "./queue.ts";
import { sessionIdCheck, sessionRoutes } from "./sessions.ts";
import { settingsRoutes } from "./settings.ts";
import { setupRoutes } from "./setup.ts";
import { statusRoutes } from "./status.ts";
import { assetRoutes, faviconRoute, isPagePath, pageRoutes } from "./ui.ts";
import { workspaceRoutes } from "./workspace.ts";

export function serveApp(deps: ServeDeps): ServeApp {
  // Routes match the raw pathname (%-escapes kept), as the guards and handlers see it.
  const app = new Hono<ServeEnv>({ getPath: (_req, o) => o!.env!.url.pathname });

  // Health check first and unconditionally: the remote supervisor probes the tunnel with it.
  app.get("/healthz", () => json({ ok: true, version: deps.opts.version }));
  app.use(requestGuard(deps));
  loginRoutes(app, deps);
  faviconRoute(app);
  app.use(apiAuth(deps));
  app.use("/api/sessions/*", sessionIdCheck);
  app.use(headOnly(isPagePath));
  assetRoutes(app);
  eventRoutes(app, deps);
  statusRoutes(app, deps);
  workspaceRoutes(app, deps);
  setupRoutes(app, deps);
  memoryRoutes(app, deps);
  mcpRoutes(app, deps);
  settingsRoutes(app, deps);
  sessionRoutes(app, deps);
  queueRoutes(app, deps);
  pageRoutes(app, deps);

  app.notFound((c) => noRoute(c.env.head ? "HEAD" : c.req.method.toUpperCase(), c.env.url.pathname));
  app.onError((e) => errorResponse(e));
  return app;
}
