import type { AuthedSession, Env, User } from "./types.ts";

/** Hono's type parameters for this app: bindings plus per-request values. */
export interface AppEnv {
  Bindings: Env;
  Variables: { now: number; session: AuthedSession; user: User };
}
