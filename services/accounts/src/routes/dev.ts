// Development-only routes, mounted only when DEV_MODE is "1": the outbox the
// dev mailer writes to, the injectable clock, and a PBKDF2 timing hook for
// the benchmark, and the work counters (src/work.ts). In production these
// paths are plain 404s.
import { Hono } from "hono";
import { invalidField } from "../errors.ts";
import { hashPassword } from "../crypto.ts";
import { readJson, onlyFields } from "../validate.ts";
import { iterations } from "./auth.ts";
import type { AppEnv } from "../app-env.ts";
import { work } from "../work.ts";

export const dev = new Hono<AppEnv>();

dev.get("/outbox", async (c) => {
  const to = c.req.query("to");
  const stmt = to
    ? c.env.DB.prepare("SELECT id, to_addr, subject, body, created_at FROM outbox WHERE to_addr = ? ORDER BY id").bind(to.toLowerCase())
    : c.env.DB.prepare("SELECT id, to_addr, subject, body, created_at FROM outbox ORDER BY id DESC LIMIT 100");
  const { results } = await stmt.all<{ id: number; to_addr: string; subject: string; body: string; created_at: number }>();
  return c.json({ messages: results.map((m) => ({ id: m.id, to: m.to_addr, subject: m.subject, body: m.body, createdAt: new Date(m.created_at).toISOString() })) });
});

dev.put("/clock", async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["offsetMs"]);
  const off = body.offsetMs;
  if (typeof off !== "number" || !Number.isSafeInteger(off)) throw invalidField("offsetMs", "must be an integer");
  await c.env.DB.prepare("INSERT INTO dev_clock (id, offset_ms) VALUES (1, ?1) ON CONFLICT(id) DO UPDATE SET offset_ms = ?1").bind(off).run();
  return c.json({ offsetMs: off });
});

dev.post("/pbkdf2", async (c) => {
  const body = await readJson(c.req.raw);
  onlyFields(body, ["count"]);
  const n = body.count;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 200) throw invalidField("count", "must be an integer from 1 to 200");
  for (let i = 0; i < n; i++) await hashPassword("benchmark-password", iterations(c.env));
  return c.json({ count: n, iterations: iterations(c.env) });
});

/** What this isolate has done so far: PBKDF2 derivations and after-response tasks (started, still running). */
dev.get("/work", (c) => c.json(work));
