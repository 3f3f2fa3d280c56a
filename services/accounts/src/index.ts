import { app } from "./app.ts";
import { now } from "./clock.ts";
import { purge } from "./purge.ts";
import type { Env, ExecutionCtx } from "./types.ts";

export default {
  fetch: app.fetch,
  /** The daily cron trigger (wrangler.toml [triggers]). */
  scheduled(_event: unknown, env: Env, ctx: ExecutionCtx) {
    ctx.waitUntil(now(env).then((t) => purge(env, t)).then((n) => console.log(`purge: ${JSON.stringify(n)}`)));
  },
};
