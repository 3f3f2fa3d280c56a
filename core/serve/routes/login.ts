// Signing in and out: the token exchange, password login (rate limited per
// client and overall), and logout. These answer before the /api/ credential check.
import { clearedCookie, safeEqual, sessionCookie, verifyPassword } from "../auth.ts";
import { readJson } from "./body.ts";
import type { ServeApp, ServeDeps } from "./context.ts";
import { noContent, problem } from "./respond.ts";

export function loginRoutes(app: ServeApp, { auth, guard, signer, limiter }: ServeDeps): void {
  const grantCookie = (req: Request): Record<string, string> => {
    const c = signer.issue();
    return { "set-cookie": sessionCookie(c.value, c.maxAgeSeconds, guard.secure(req)) };
  };

  app.post("/auth/token", async (c) => {
    if (auth.mode !== "token") return problem(404, "not_found", "token login is not enabled");
    const token = (await readJson(c.req.raw)).token;
    if (typeof token !== "string" || !safeEqual(token, auth.token)) return problem(401, "bad_token", "invalid token");
    return noContent(grantCookie(c.req.raw));
  });

  app.post("/login", async (c) => {
    if (auth.mode !== "password") return problem(404, "not_found", "password login is not enabled");
    const req = c.req.raw;
    const wait = limiter.take(guard.clientId(req, c.env.server.requestIP(req)?.address));
    if (wait) return problem(429, "rate_limited", `too many login attempts; try again in ${wait}s`, { "retry-after": String(wait) });
    const pw = (await readJson(req)).password;
    if (typeof pw !== "string" || !(await verifyPassword(pw, auth.passwordHash))) return problem(401, "bad_password", "wrong password");
    return noContent(grantCookie(req));
  });

  app.post("/auth/logout", (c) => noContent({ "set-cookie": clearedCookie(guard.secure(c.req.raw)) }));
}
