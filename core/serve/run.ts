import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import { homePaths } from "../home.ts";
import { InstanceHeartbeat, type InstanceRecord } from "./instances.ts";
import { startServer, type RunningServer, type ServerOptions } from "./server.ts";

export interface RunOptions extends ServerOptions {
  /** "serve" or "web", recorded in the instance file. */
  kind: "serve" | "web";
  home: string;
  portFile?: string;
  pidFile?: string;
  /** Called once listening (print the URL, open the browser). */
  onListening?: (server: RunningServer) => void | Promise<void>;
  onShutdown?: (signal: string) => void;
  /** An earlier server of this home ended without shutting down (found when this one starts). */
  onEarlierDied?: (rec: InstanceRecord) => void;
  /** Upper bound for the graceful part of shutdown before exiting anyway. */
  shutdownTimeoutMs?: number;
}

function removeIfOurs(path: string | undefined, content: string): void {
  if (!path) return;
  try {
    if (readFileSync(path, "utf8") === content) unlinkSync(path);
  } catch {}
}

/**
 * Run a server until SIGTERM/SIGINT: bind, write the port/pid files and the
 * instance heartbeat, then on a signal stop accepting, let in-flight session
 * writes land and remove everything we wrote. Resolves with the exit code.
 */
/**
 * The password-mode cookie key in `$REASONIX_HOME/server/cookie-key` (0600),
 * created on first use so browsers stay signed in across restarts.
 */
export function loadCookieSecret(home: string): string {
  const file = join(homePaths(home).server, "cookie-key");
  try {
    const st = statSync(file);
    if ((st.mode & 0o077) !== 0) chmodSync(file, 0o600);
    const v = readFileSync(file, "utf8").trim();
    if (v.length >= 32) return v;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const v = randomBytes(32).toString("base64url");
  writeFileAtomic(file, `${v}\n`, { mode: 0o600, dirMode: 0o700 });
  return v;
}

export async function runServer(opts: RunOptions): Promise<number> {
  const cookieSecret = opts.cookieSecret ?? (opts.auth.mode === "password" ? loadCookieSecret(opts.home) : undefined);
  const server = await startServer({ ...opts, cookieSecret });
  const portContent = `${server.addr}\n`;
  const pidContent = `${process.pid}\n`;
  const heartbeat = new InstanceHeartbeat(homePaths(opts.home).instances, {
    kind: opts.kind,
    addr: server.addr,
    url: server.url,
    workspace: opts.workspace,
    authMode: opts.auth.mode,
    version: opts.version,
  }, undefined, opts.onEarlierDied);
  // Any exit this process makes (an error that reached the top, a closed stdout) removes
  // the record: one left behind means the process was killed outright.
  const closeOnExit = () => heartbeat.close();
  process.once("exit", closeOnExit);
  // Catch signals before announcing the port: a supervisor (or a test) may
  // signal the moment it sees the port file, and the default action would
  // kill us without cleaning up.
  const handlers: [NodeJS.Signals, () => void][] = [];
  const signalled = new Promise<string>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      const h = () => resolve(sig);
      handlers.push([sig, h]);
      process.once(sig, h);
    }
  });
  try {
    if (opts.pidFile) writeFileAtomic(opts.pidFile, pidContent, { mode: 0o600 });
    // Written last and atomically: a reader that sees the port file can connect.
    if (opts.portFile) writeFileAtomic(opts.portFile, portContent, { mode: 0o600 });
    await opts.onListening?.(server);
  } catch (e) {
    for (const [sig, h] of handlers) process.off(sig, h);
    heartbeat.close();
    await server.stop();
    throw e;
  }

  const signal = await signalled;
  opts.onShutdown?.(signal);
  // A second signal while we drain means "now".
  const force = () => {
    heartbeat.close();
    removeIfOurs(opts.portFile, portContent);
    removeIfOurs(opts.pidFile, pidContent);
    process.exit(1);
  };
  process.once("SIGTERM", force);
  process.once("SIGINT", force);
  const timeout = new Promise<void>((r) => setTimeout(r, opts.shutdownTimeoutMs ?? 15_000).unref?.());
  await Promise.race([server.stop(), timeout]);
  heartbeat.close();
  removeIfOurs(opts.portFile, portContent);
  removeIfOurs(opts.pidFile, pidContent);
  return 0;
}
