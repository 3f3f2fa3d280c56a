// Run the accounts Worker locally: real workerd (through Miniflare) with a
// persistent local D1 database, migrations applied on start.
//
//   bun services/accounts/scripts/local.ts [--port 8787] [--state DIR] [--fresh]
//
// `npm run accounts:dev -- --port N` from the repository root runs this. It
// prints one JSON line {"url", "workerdPid", "state"} on stdout once ready.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ensureDeps, serviceDir } from "./deps.ts";

const HELP = `usage: bun services/accounts/scripts/local.ts [options]

Runs the accounts API in local workerd with a local D1 database (migrations
applied automatically) and development settings: the outbox mailer
(GET /v1/dev/outbox), the injectable clock (PUT /v1/dev/clock) and an
embedded, non-secret pepper.

  --port N                 port on 127.0.0.1 (default 8787; 0 picks a free one)
  --host ADDR              listen address (default 127.0.0.1)
  --state DIR              where the local D1 lives (default services/accounts/.dev-state)
  --fresh                  delete the state directory first
  --pepper S               PEPPER secret (default $PEPPER or a fixed dev value)
  --allowed-origins LIST   comma-separated origins for cookie sessions
  --mail-api-url URL       send mail through this HTTP API instead of the outbox
  --mail-api-key KEY       its Bearer key (default $MAIL_API_KEY)
  --pbkdf2-iterations N    lower PBKDF2 cost for new hashes (development only)
  --no-dev                 production behaviour: no /v1/dev routes, no outbox
  --exit-with-parent       stop when the process that started this one exits
  -h, --help               this text
`;

const { values: o } = parseArgs({
  options: {
    port: { type: "string", default: "8787" },
    host: { type: "string", default: "127.0.0.1" },
    state: { type: "string" },
    fresh: { type: "boolean", default: false },
    pepper: { type: "string" },
    "allowed-origins": { type: "string" },
    "mail-api-url": { type: "string" },
    "mail-api-key": { type: "string" },
    "pbkdf2-iterations": { type: "string" },
    "no-dev": { type: "boolean", default: false },
    "exit-with-parent": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
  strict: true,
});
if (o.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const port = Number(o.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`error: --port: "${o.port}" is not a port number\n`);
  process.exit(2);
}

const missing = ensureDeps();
if (missing) {
  process.stderr.write(`error: ${missing}\n`);
  process.exit(1);
}

const state = resolve(o.state ?? join(serviceDir, ".dev-state"));
if (o.fresh) rmSync(state, { recursive: true, force: true });
mkdirSync(state, { recursive: true, mode: 0o700 });

const esbuild = await import(join(serviceDir, "node_modules", "esbuild", "lib", "main.js"));
const built = await esbuild.build({
  entryPoints: [join(serviceDir, "src", "index.ts")],
  bundle: true,
  format: "esm",
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  target: "es2022",
  write: false,
  logLevel: "silent",
});
const script: string = built.outputFiles[0].text;

const wrangler = Bun.TOML.parse(readFileSync(join(serviceDir, "wrangler.toml"), "utf8")) as { compatibility_date: string; vars?: Record<string, string> };
const dev = !o["no-dev"];
const bindings: Record<string, string> = {
  ...(wrangler.vars ?? {}),
  PEPPER: o.pepper ?? process.env.PEPPER ?? "reasonix-accounts-local-dev-pepper-not-a-secret",
  ALLOWED_ORIGINS: o["allowed-origins"] ?? `http://localhost:5173,http://127.0.0.1:5173`,
  APP_URL: "http://localhost:5173",
};
if (dev) bindings.DEV_MODE = "1";
if (o["pbkdf2-iterations"]) bindings.DEV_PBKDF2_ITERATIONS = o["pbkdf2-iterations"];
if (o["mail-api-url"]) {
  bindings.MAIL_API_URL = o["mail-api-url"];
  bindings.MAIL_API_KEY = o["mail-api-key"] ?? process.env.MAIL_API_KEY ?? "";
}

const { Miniflare } = await import(join(serviceDir, "node_modules", "miniflare", "dist", "src", "index.js"));
const mf = new Miniflare({
  modules: true,
  script,
  compatibilityDate: wrangler.compatibility_date,
  d1Databases: { DB: "reasonix-accounts-local" },
  d1Persist: join(state, "d1"),
  bindings,
  host: o.host,
  port,
  cf: false,
  // Development: GET /cdn-cgi/handler/scheduled runs the cron handler (the daily purge).
  unsafeTriggerHandlers: dev,
});

async function migrate(): Promise<string[]> {
  const db = await mf.getD1Database("DB");
  await db.prepare("CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)").run();
  const done = new Set(((await db.prepare("SELECT name FROM d1_migrations").all()).results as { name: string }[]).map((r) => r.name));
  const dir = join(serviceDir, "migrations");
  const applied: string[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".sql")).sort()) {
    if (done.has(name)) continue;
    const sql = readFileSync(join(dir, name), "utf8").replace(/--[^\n]*/g, "");
    const stmts = sql.split(";").map((s) => s.trim()).filter(Boolean);
    await db.batch([...stmts.map((s) => db.prepare(s)), db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(name)]);
    applied.push(name);
  }
  return applied;
}

/** workerd runs as our child; its pid lets the benchmark read its CPU time. */
function workerdPid(): number | null {
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
      if (m && m[1]!.startsWith("workerd") && Number(m[2]) === process.pid) return Number(e);
    } catch {}
  }
  return null;
}

let url: URL;
try {
  url = await mf.ready;
  const applied = await migrate();
  if (applied.length) process.stderr.write(`accounts: applied migrations ${applied.join(", ")}\n`);
} catch (e) {
  process.stderr.write(`error: workerd did not start: ${e instanceof Error ? e.message : String(e)}\n`);
  await mf.dispose().catch(() => {});
  process.exit(1);
}

const base = url.href.replace(/\/$/, "");
process.stdout.write(`${JSON.stringify({ url: base, workerdPid: existsSync("/proc") ? workerdPid() : null, state })}\n`);
process.stderr.write(`accounts API on ${base} (local D1 in ${state}${dev ? "; dev mailer: GET /v1/dev/outbox" : ""}); Ctrl-C stops\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await mf.dispose().catch(() => {});
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
if (o["exit-with-parent"]) {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop();
  }, 500);
}
