// Test support for crash reports: a throw-away home (with planted secrets in
// its .env and environment), the CLI run against it, a loopback collector.
import { afterAll } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const main = join(import.meta.dir, "..", "main.ts");
const roots: string[] = [];
afterAll(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });

export const DOTENV_SECRET = "planted-dotenv-value-quux";
export const ENV_SECRET = "planted-env-value-wibble";
export const TOKEN = "sk-proj-PlantedToken0123456789";
export const EMAIL = "mallory.planted@example.com";

export interface Box { root: string; rx: string; ws: string }
export function box(userToml = "", projectToml?: string): Box {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-crash-")));
  roots.push(root);
  const rx = join(root, ".reasonix");
  const ws = join(root, "ws");
  mkdirSync(rx, { recursive: true });
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(rx, ".env"), `SOME_PROVIDER_API_KEY=${DOTENV_SECRET}\n`, { mode: 0o600 });
  writeFileSync(join(rx, "config.toml"), userToml);
  if (projectToml !== undefined) writeFileSync(join(ws, "reasonix.toml"), projectToml);
  return { root, rx, ws };
}

export async function cli(b: Box, args: string[], extraEnv: Record<string, string> = {}, bunFlags: string[] = []) {
  const p = Bun.spawn([process.execPath, ...bunFlags, main, ...args], {
    cwd: b.ws,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: b.root, REASONIX_HOME: b.rx, NO_COLOR: "1", MY_SERVICE_SECRET: ENV_SECRET, ...extraEnv },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  return { out, err, code };
}

export const reportFiles = (b: Box) => {
  const dir = join(b.rx, "crash-reports");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => join(dir, f)) : [];
};

/** The message the crash carries: every kind of thing that must not reach a report. */
export const planted = (b: Box) => `${TOKEN} for ${EMAIL} reading ${b.root}/private/notes.ts with ${DOTENV_SECRET} and ${ENV_SECRET} GITHUB_TOKEN=plainvalue`;
export const NEVER = (b: Box) => [TOKEN, EMAIL, "mallory", b.root, DOTENV_SECRET, ENV_SECRET, "plainvalue", join(import.meta.dir, "..", "..")];

export async function crash(b: Box, surface: string, args: string[], how = "") {
  return cli(b, args, { REASONIX_TEST_CRASH: `${surface}${how}`, REASONIX_TEST_CRASH_MESSAGE: planted(b) });
}

/** A loopback crash collector answering `status`; records every body it gets. */
export function collector(status: number) {
  const bodies: string[] = [];
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (req) => { bodies.push(await req.text()); return new Response("", { status }); } });
  return { url: `http://127.0.0.1:${server.port}/v1/reports`, bodies, stop: () => server.stop(true) };
}

