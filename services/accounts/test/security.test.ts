// The security properties: peppered session hashes (a copied database is
// useless without the pepper), enumeration safety including timing, rehash on
// login, production mode (HTTP mailer, no dev routes), failing closed without
// a pepper.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { call, cleanupTemp, freshIp, loginToken, mailTo, sha256Hex, startWorker, tempDir, tokenIn, uniqueEmail, unavailable, verifiedUser, type Worker } from "./helpers.ts";
import { pollFor } from "../../../core/testing/fresh-wait.ts";

setDefaultTimeout(180_000);
const skip = unavailable();
if (skip) console.warn(`SKIPPED accounts security tests: ${skip}`);

const workers: Worker[] = [];
async function start(...a: Parameters<typeof startWorker>): Promise<Worker> {
  const w = await startWorker(...a);
  workers.push(w);
  return w;
}
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  cleanupTemp();
});

/** The local D1 file of a state directory (Miniflare keeps one SQLite file per database). */
function dbFile(state: string): string {
  const dir = join(state, "d1", "miniflare-D1DatabaseObject");
  const f = readdirSync(dir).find((n) => n.endsWith(".sqlite"));
  if (!f) throw new Error(`no .sqlite in ${dir}`);
  return join(dir, f);
}

/** Copy a running worker's state (database and its WAL) to a new directory. */
function copyState(state: string): string {
  const to = join(tempDir("accounts-copy-"), "state");
  cpSync(state, to, { recursive: true });
  return to;
}

describe.skipIf(!!skip)("accounts security (workerd + local D1)", () => {
  test("the sessions table holds sha256(pepper:token); a copied database without the pepper authenticates nobody", async () => {
    const w = await start();
    const { email, password } = await verifiedUser(w.url, "pepper");
    const token = await loginToken(w.url, email, password);
    const want = sha256Hex(`${w.pepper}:${token}`);
    // Copy the state until the copy holds this login's session row (the local D1 writes it to disk on its own time).
    const { copy, rows, tokens } = await pollFor(
      "the login's session row in a copy of the state",
      () => {
        const copy = copyState(w.state);
        const db = new Database(dbFile(copy));
        const rows = db.query("SELECT * FROM sessions").all() as Record<string, unknown>[];
        const tokens = db.query("SELECT token_hash FROM email_tokens").all() as { token_hash: string }[];
        db.close();
        return { copy, rows, tokens };
      },
      (v) => v.rows.some((r) => r.token_hash === want),
      { everyMs: 200, show: (v) => `${v.rows.length} session rows` },
    );
    expect(rows.map((r) => r.token_hash)).toContain(want);
    // Neither the raw token nor an unpeppered hash of it is stored anywhere in the row.
    for (const r of rows) for (const v of Object.values(r)) expect([token, sha256Hex(token)]).not.toContain(v as string);
    expect(tokens.every((t) => /^[0-9a-f]{64}$/.test(t.token_hash))).toBe(true);

    const thief = await start({ state: copy, pepper: "a-different-pepper" });
    const stolen = await call(thief.url, "GET", "/v1/me", { token });
    expect(stolen.status).toBe(401);
    // Control: the same copy with the right pepper does know the session.
    const owner = await start({ state: copyState(w.state), pepper: w.pepper });
    expect((await call(owner.url, "GET", "/v1/me", { token })).status).toBe(200);
  });

  test("enumeration: sign-up, forgot-password and login answer the same status and body, and do the same work before answering, for known and unknown addresses", async () => {
    // The timing itself is measured by `bun scripts/bench/accounts.ts --only enumeration`
    // (a ratio to one PBKDF2); here the cause of equal timing is checked: the
    // same number of PBKDF2 derivations and after-response tasks before each answer.
    const w = await start();
    const U = w.url;
    const known: string[] = [];
    for (let i = 0; i < 6; i++) known.push((await verifiedUser(U, "enum")).email);
    const workNow = async () => (await call(U, "GET", "/v1/dev/work")).body as { pbkdf2: number; afterStarted: number; afterPending: number };
    // Each request starts after the previous one's after-response work ended (a caused state, not a pause).
    const settled = () => pollFor("after-response tasks to finish", workNow, (n) => n.afterPending === 0, { show: (n) => JSON.stringify(n) });
    // The first unknown login derives the dummy hash once per isolate: not part of a request's steady cost.
    await call(U, "POST", "/v1/login", { json: { email: uniqueEmail("warm"), password: "wrong password" }, ip: freshIp() });
    let unique = 0;
    async function compare(path: string, body: (email: string) => object, expected: string) {
      const seen: { status: number; text: string; work: string | null }[] = [];
      for (let i = 0; i < 3; i++) {
        for (const email of [known[i]!, uniqueEmail(`ghost${++unique}`)]) {
          await settled();
          const r = await call(U, "POST", path, { json: body(email), ip: freshIp() });
          seen.push({ status: r.status, text: r.text, work: r.headers.get("x-dev-work") });
        }
      }
      expect(new Set(seen.map((r) => r.status)).size).toBe(1);
      expect(new Set(seen.map((r) => r.text)).size).toBe(1);
      expect(seen.map((r) => r.work)).toEqual(seen.map(() => expected));
    }
    await compare("/v1/signup", (email) => ({ email, password: "some password" }), "pbkdf2=1; after=1");
    await compare("/v1/forgot-password", (email) => ({ email }), "pbkdf2=0; after=1");
    await compare("/v1/login", (email) => ({ email, password: "wrong password" }), "pbkdf2=1; after=0");
    await settled();
  });

  test("a hash with fewer iterations is upgraded on the next successful login", async () => {
    const state = join(tempDir(), "state");
    const weak = await start({ state, extra: ["--pbkdf2-iterations", "1000"] });
    const { email, password } = await verifiedUser(weak.url, "rehash");
    await weak.stop();
    const read = () => {
      const db = new Database(dbFile(state), { readonly: true });
      const r = db.query("SELECT password_hash FROM users WHERE email = ?").get(email) as { password_hash: string };
      db.close();
      return r.password_hash;
    };
    expect(read()).toMatch(/^pbkdf2-sha256\$1000\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    const strong = await start({ state, pepper: weak.pepper });
    await loginToken(strong.url, email, password);
    await loginToken(strong.url, email, password);
    await strong.stop();
    expect(read()).toMatch(/^pbkdf2-sha256\$100000\$/);
  });

  test("production mode: mail goes to the HTTP provider with its key; the dev routes do not exist", async () => {
    const received: { auth: string | null; body: any }[] = [];
    const sink = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (req) => {
        received.push({ auth: req.headers.get("authorization"), body: await req.json() });
        return Response.json({ id: `msg-${received.length}` });
      },
    });
    try {
      const w = await start({ extra: ["--no-dev", "--mail-api-url", `http://127.0.0.1:${sink.port}/emails`, "--mail-api-key", "test-mail-key"] });
      const health = await call(w.url, "GET", "/v1/health");
      expect(health.body).toMatchObject({ ok: true, mail: "http", dev: false });
      const email = uniqueEmail("prod");
      expect((await call(w.url, "POST", "/v1/signup", { json: { email, password: "production pw" }, ip: freshIp() })).status).toBe(202);
      await pollFor("the mail at the mail API", () => received.length, (n) => n > 0);
      expect(received).toHaveLength(1);
      expect(received[0]!.auth).toBe("Bearer test-mail-key");
      expect(received[0]!.body).toMatchObject({ to: [email], subject: "Confirm your Reasonix account" });
      expect(typeof received[0]!.body.from).toBe("string");
      const token = tokenIn(received[0]!.body.text);
      expect((await call(w.url, "POST", "/v1/verify-email", { json: { token }, ip: freshIp() })).status).toBe(200);
      for (const [m, p] of [["GET", "/v1/dev/outbox"], ["PUT", "/v1/dev/clock"], ["POST", "/v1/dev/pbkdf2"]] as const) {
        const r = await call(w.url, m, p, { json: m === "GET" ? undefined : { offsetMs: 1 } });
        expect(r.status).toBe(404);
      }
      expect(w.stderr()).not.toContain(token);
    } finally {
      sink.stop(true);
    }
  });

  test("a failing mail provider is logged without the message or its token", async () => {
    const bodies: any[] = [];
    const sink = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (req) => {
        bodies.push(await req.json());
        return new Response("down", { status: 500 });
      },
    });
    try {
      const w = await start({ extra: ["--no-dev", "--mail-api-url", `http://127.0.0.1:${sink.port}/emails`, "--mail-api-key", "k"] });
      expect((await call(w.url, "POST", "/v1/signup", { json: { email: uniqueEmail("maildown"), password: "long enough pw" }, ip: freshIp() })).status).toBe(202);
      await pollFor("the mail failure logged", () => w.stderr(), (s) => s.includes("signup mail failed"));
      expect(w.stderr()).toContain("signup mail failed: mail API answered HTTP 500");
      const token = tokenIn(bodies[0].text);
      expect(token.length).toBeGreaterThan(40);
      expect(w.stderr() + w.stdout()).not.toContain(token);
    } finally {
      sink.stop(true);
    }
  });

  test("without a PEPPER the service fails closed with 503", async () => {
    const w = await start({ pepper: "" });
    const h = await call(w.url, "GET", "/v1/health");
    expect(h.status).toBe(503);
    expect(h.body.pepper).toBe(false);
    const r = await call(w.url, "POST", "/v1/signup", { json: { email: uniqueEmail("np"), password: "long enough pw" }, ip: freshIp() });
    expect(r.status).toBe(503);
    expect(r.body.error).toBe("misconfigured");
  });

  test("without a mail provider (or its key) in production, sign-up and forgot-password refuse with 503 instead of losing the mail", async () => {
    const noKey = await start({ extra: ["--no-dev", "--mail-api-url", "http://127.0.0.1:9/emails", "--mail-api-key", ""] });
    const r = await call(noKey.url, "POST", "/v1/signup", { json: { email: uniqueEmail("nk"), password: "long enough pw" }, ip: freshIp() });
    expect(r.status).toBe(503);
    expect(r.body.message).toContain("MAIL_API_KEY");
    const w = await start({ extra: ["--no-dev"] });
    for (const [p, body] of [["/v1/signup", { email: uniqueEmail("nm"), password: "long enough pw" }], ["/v1/forgot-password", { email: uniqueEmail("nm") }]] as const) {
      const r = await call(w.url, "POST", p, { json: body, ip: freshIp() });
      expect(r.status).toBe(503);
      expect(r.body.error).toBe("mail_unconfigured");
    }
  });
});
