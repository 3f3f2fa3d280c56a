// The service's notion of "now". In development (DEV_MODE=1) a stored offset
// can move it forward, so tests can expire tokens and sessions without waiting.
import type { Env } from "./types.ts";

export async function now(env: Env): Promise<number> {
  if (env.DEV_MODE !== "1") return Date.now();
  const row = await env.DB.prepare("SELECT offset_ms FROM dev_clock WHERE id = 1").first<{ offset_ms: number }>();
  return Date.now() + (row?.offset_ms ?? 0);
}
