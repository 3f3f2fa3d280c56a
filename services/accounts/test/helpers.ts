// Test support: start the Worker in real workerd (scripts/local.ts, which
// runs Miniflare with a local D1) and talk to it over HTTP on loopback.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDeps, serviceDir } from "../scripts/deps.ts";

export const repoRoot = join(serviceDir, "..", "..");

/** Why the suite cannot run here, or null. Installs the service's dependencies when missing. */
export function unavailable(): string | null {
  const deps = ensureDeps();
  if (deps) return deps;
  const r = Bun.spawnSync([join(serviceDir, "node_modules", ".bin", "workerd"), "--version"], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) return `workerd does not run on this machine: ${r.stderr.toString().trim() || `exit ${r.exitCode}`}`;
  return null;
}

export interface Worker {
  url: string;
  state: string;
  pepper: string;
  workerdPid: number | null;
  stderr: () => string;
  stdout: () => string;
  stop: () => Promise<void>;
}

export interface StartOptions {
  state?: string;
  pepper?: string;
  origins?: string;
  extra?: string[];
}

const cleanups: (() => void)[] = [];
export function tempDir(prefix = "accounts-test-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}
export function cleanupTemp(): void {
  for (const c of cleanups.splice(0).reverse()) c();
}

export async function startWorker(opts: StartOptions = {}): Promise<Worker> {
  const state = opts.state ?? join(tempDir(), "state");
  const pepper = opts.pepper ?? `test-pepper-${crypto.randomUUID()}`;
  const proc = Bun.spawn(
    [process.execPath, join(serviceDir, "scripts", "local.ts"), "--port", "0", "--state", state, "--pepper", pepper, "--allowed-origins", opts.origins ?? "https://app.test", "--exit-with-parent", ...(opts.extra ?? [])],
    { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
  );
  let err = "";
  let out = "";
  void (async () => {
    for await (const c of proc.stderr) err += new TextDecoder().decode(c);
  })();
  // Keep draining stdout (the worker's console.log lands there) so the pipe never fills.
  let gotLine: () => void = () => {};
  const firstLine = new Promise<void>((r) => (gotLine = r));
  void (async () => {
    for await (const c of proc.stdout) {
      out += new TextDecoder().decode(c);
      if (out.includes("\n")) gotLine();
    }
    gotLine();
  })();
  const ready = await Promise.race([firstLine.then(() => out.includes("\n")), Bun.sleep(60_000).then(() => false)]);
  if (!ready) {
    proc.kill();
    throw new Error(`the accounts Worker did not start: ${err.trim() || "no output"}`);
  }
  const info = JSON.parse(out.split("\n")[0]!) as { url: string; workerdPid: number | null };
  return {
    url: info.url,
    state,
    pepper,
    workerdPid: info.workerdPid,
    stderr: () => err,
    stdout: () => out,
    stop: async () => {
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(10_000)]);
      if (proc.exitCode === null) proc.kill("SIGKILL");
    },
  };
}

export interface Res {
  status: number;
  headers: Headers;
  body: any;
  text: string;
  ms: number;
}

let ipCounter = 0;
/** A fresh client address per call site: rate limits are per IP, so tests do not share buckets by accident. */
/** (Only a header value: addresses from the IPv6 documentation range, never dialled.) */
export const freshIp = () => `2001:db8::${(++ipCounter).toString(16)}:${process.pid.toString(16)}`;

export async function call(
  base: string,
  method: string,
  path: string,
  opts: { json?: unknown; raw?: string; contentType?: string; token?: string; cookie?: string; origin?: string; ip?: string; headers?: Record<string, string> } = {},
): Promise<Res> {
  const headers: Record<string, string> = { "cf-connecting-ip": opts.ip ?? "203.0.113.1", ...opts.headers };
  let body: string | undefined;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers["content-type"] = "application/json";
  }
  if (opts.raw !== undefined) {
    body = opts.raw;
    headers["content-type"] = opts.contentType ?? "application/json";
  }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.origin) headers.origin = opts.origin;
  const t0 = performance.now();
  // No socket reuse: Bun may reuse a pooled socket workerd has already closed (ECONNRESET).
  const res = await fetch(`${base}${path}`, { method, headers, body, redirect: "manual", keepalive: false });
  const text = await res.text();
  const ms = performance.now() - t0;
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed, text, ms };
}

/** Wait (bounded) for a message to `to` whose subject matches; the dev mailer writes after the response. */
export async function mailTo(base: string, to: string, subject: RegExp, count = 1): Promise<{ subject: string; body: string }[]> {
  for (let i = 0; i < 100; i++) {
    const r = await call(base, "GET", `/v1/dev/outbox?to=${encodeURIComponent(to)}`);
    const hits = (r.body?.messages ?? []).filter((m: { subject: string }) => subject.test(m.subject));
    if (hits.length >= count) return hits;
    await Bun.sleep(50);
  }
  throw new Error(`no email matching ${subject} reached ${to}`);
}

export const tokenIn = (mailBody: string) => /#token=([A-Za-z0-9_-]+)/.exec(mailBody)?.[1] ?? "";

export function sha256Hex(s: string): string {
  return new Bun.CryptoHasher("sha256").update(s).digest("hex");
}

let n = 0;
export const uniqueEmail = (tag = "user") => `${tag}-${Date.now().toString(36)}-${++n}@example.test`;

/** Sign up, follow the verification link, and return the credentials. */
export async function verifiedUser(base: string, tag = "user", password = "correct horse battery"): Promise<{ email: string; password: string }> {
  const email = uniqueEmail(tag);
  const s = await call(base, "POST", "/v1/signup", { json: { email, password }, ip: freshIp() });
  if (s.status !== 202) throw new Error(`signup: ${s.status} ${s.text}`);
  const [mail] = await mailTo(base, email, /Confirm/);
  const v = await call(base, "POST", "/v1/verify-email", { json: { token: tokenIn(mail!.body) }, ip: freshIp() });
  if (v.status !== 200) throw new Error(`verify: ${v.status} ${v.text}`);
  return { email, password };
}

export async function loginToken(base: string, email: string, password: string): Promise<string> {
  const r = await call(base, "POST", "/v1/login", { json: { email, password, mode: "token" }, ip: freshIp() });
  if (r.status !== 200) throw new Error(`login: ${r.status} ${r.text}`);
  return r.body.token;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
