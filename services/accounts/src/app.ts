// The accounts API: JSON only, versioned under /v1.
import { Hono } from "hono";
import { cors } from "hono/cors";
import { ApiError, errorBody } from "./errors.ts";
import { now } from "./clock.ts";
import { mailerFor } from "./mailer.ts";
import { allowedOrigins } from "./sessions.ts";
import { account } from "./routes/account.ts";
import { auth } from "./routes/auth.ts";
import { dev } from "./routes/dev.ts";
import { profiles } from "./routes/profiles.ts";
import type { AppEnv } from "./app-env.ts";
import { work } from "./work.ts";

export const app = new Hono<AppEnv>();

app.use("*", cors({ origin: (origin, c) => (allowedOrigins(c.env).includes(origin) ? origin : null), credentials: true, allowHeaders: ["Content-Type", "Authorization"], allowMethods: ["GET", "POST", "PATCH", "PUT", "DELETE"], maxAge: 600 }));

app.get("/v1/health", async (c) => {
  const mail = mailerFor(c.env, Date.now())?.kind ?? "unconfigured";
  return c.json({ ok: !!c.env.PEPPER, pepper: !!c.env.PEPPER, mail, dev: c.env.DEV_MODE === "1" }, c.env.PEPPER ? 200 : 503);
});

// Development only: each answer says how many PBKDF2 derivations and
// after-response tasks its request caused before it was sent, so tests can
// check that two paths do the same work without timing them.
app.use("*", async (c, next) => {
  if (c.env.DEV_MODE !== "1") return next();
  const pbkdf2 = work.pbkdf2;
  const after = work.afterStarted;
  await next();
  c.res.headers.set("x-dev-work", `pbkdf2=${work.pbkdf2 - pbkdf2}; after=${work.afterStarted - after}`);
});

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

app.use("/v1/*", async (c, next) => {
  // Fail closed: without the pepper no token can be hashed or checked.
  if (!c.env.PEPPER) throw new ApiError(503, "misconfigured", "the PEPPER secret is not set (wrangler secret put PEPPER)");
  // A browser page from a foreign origin may not change anything here, signed in or not
  // (this stops login CSRF and cross-site sign-up spam). Bearer clients are exempt.
  const origin = c.req.header("origin");
  if (origin !== undefined && !SAFE.has(c.req.method) && c.req.header("authorization") === undefined && !allowedOrigins(c.env).includes(origin)) {
    throw new ApiError(403, "origin_not_allowed", `Origin ${origin} may not make changes here`);
  }
  c.set("now", await now(c.env));
  c.header("cache-control", "no-store");
  await next();
});

app.route("/v1", auth);
app.route("/v1", account);
app.route("/v1", profiles);
app.use("/v1/dev/*", async (c, next) => {
  if (c.env.DEV_MODE !== "1") throw new ApiError(404, "not_found", "no such route");
  await next();
});
app.route("/v1/dev", dev);

app.notFound(() => {
  throw new ApiError(404, "not_found", "no such route");
});

app.onError((err, c) => {
  if (err instanceof ApiError) {
    for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
    return c.json(errorBody(err), err.status as 400);
  }
  console.error(`unhandled: ${err instanceof Error ? err.message : String(err)}`);
  return c.json({ error: "internal", message: "internal error" }, 500);
});
