import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { pollFor } from "../../testing/fresh-wait.ts";

export const repoRoot = resolve(import.meta.dir, "..", "..", "..");
export const cliMain = join(repoRoot, "cli", "main.ts");

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `reasonix-serve-${prefix}-`));
}

/** Poll `fn` until it returns something truthy (core/testing/fresh-wait.ts); `fn` should test a state the test's action causes. */
export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  return (await pollFor(what, fn, (v) => !!v, { timeoutMs, everyMs: 25 })) as T;
}

export interface ServeProc {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  dir: string;
  home: string;
  portFile: string;
  pidFile: string;
  addr: string;
  base: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM and wait; returns the exit code. */
  stop(): Promise<number>;
}

/**
 * Start `reasonix serve` (or `web`) from source (or `bin`) as a real child process,
 * with its own REASONIX_HOME, and wait for the port file.
 */
export async function startServe(args: string[], opts: { home?: string; env?: Record<string, string>; command?: string; waitPortFile?: boolean; /** A compiled reasonix to run instead of the source. */ bin?: string; /** Same as `bin`. */ binary?: string } = {}): Promise<ServeProc> {
  const dir = tempDir("run");
  const home = opts.home ?? join(dir, "home");
  const portFile = join(dir, "port");
  const pidFile = join(dir, "pid");
  // `bin` (or `binary`): a compiled reasonix (its web UI embedded at build time) instead of the sources.
  const exe = opts.bin ?? opts.binary;
  const cmd = [...(exe ? [exe] : [process.execPath, cliMain]), opts.command ?? "serve", "--port-file", portFile, "--pid-file", pidFile, ...args];
  const proc = Bun.spawn(cmd, {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    cwd: dir,
    // English whatever this machine's locale (the tests read the interface text; a test may set it).
    env: { ...process.env, REASONIX_HOME: home, NO_COLOR: "1", REASONIX_LANG: "en", ...opts.env },
  });
  let out = "";
  let err = "";
  const dec = () => new TextDecoder();
  void (async () => { const d = dec(); for await (const c of proc.stdout) out += d.decode(c); })();
  void (async () => { const d = dec(); for await (const c of proc.stderr) err += d.decode(c); })();
  const addr = await waitFor(`port file (stderr so far: ${err})`, () => {
    if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}: ${err}${out}`);
    return existsSync(portFile) ? readFileSync(portFile, "utf8").trim() : undefined;
    // Starting `bun cli/main.ts serve` took over 20 s on a loaded 2-core machine (every soak run under --load 2).
  }, 90_000);
  return {
    proc,
    dir,
    home,
    portFile,
    pidFile,
    addr,
    base: `http://${addr}`,
    stdout: () => out,
    stderr: () => err,
    stop: async () => {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      const code = await Promise.race([proc.exited, Bun.sleep(20_000).then(() => null)]);
      if (code === null) {
        proc.kill("SIGKILL");
        await proc.exited;
        throw new Error("serve did not stop within 20s of SIGTERM");
      }
      return code;
    },
  };
}

export function writeSecret(dir: string, name: string, value: string): string {
  const p = join(dir, name);
  writeFileSync(p, `${value}\n`, { mode: 0o600 });
  return p;
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Run the CLI to completion (for commands that exit by themselves). */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, cliMain, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: { ...process.env, NO_COLOR: "1", ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/**
 * Real `reasonix serve` processes on one home and workspace (under `dir`,
 * against the scripted provider at `llmUrl`), to kill and start again: the
 * crash tests. `start` records each server in `servers` (stop them after).
 */
export function restartableServe(dir: string, llmUrl: string, token: string, servers: ServeProc[]) {
  const home = join(dir, "home");
  const workspace = join(dir, "ws");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(join(home, "config.toml"), `default_model = "s"\n\n[[providers]]\nname = "s"\nkind = "openai"\nbase_url = "${llmUrl}"\nmodel = "m"\n`);
  const tokenFile = writeSecret(dir, "token", token);
  const start = async () => {
    const s = await startServe(["--addr", "127.0.0.1:0", "--auth", "token", "--token-file", tokenFile, "--workspace", workspace], { home });
    servers.push(s);
    return s;
  };
  const call = async (s: ServeProc, path: string, method = "GET", body?: unknown) => {
    const r = await fetch(`${s.base}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: method === "GET" ? undefined : JSON.stringify(body ?? {}) });
    return { status: r.status, body: (await r.json()) as any };
  };
  return { home, workspace, start, call };
}
