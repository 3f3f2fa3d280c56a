// Shared by the supervisor/reconnect/forward tests: an isolated local HOME with
// a user config naming the harness's sshd, and `reasonix remote connect --json`
// run from source as a child whose JSON events the test can wait for.
import { afterAll, beforeAll } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startSshd, type SshdHandle, type SshdOptions } from "../testing/sshd-harness.ts";
import { buildTestBinary, type TestBuild, BUILD_HOOK_MS } from "../testing/test-build.ts";

const ROOT = resolve(import.meta.dir, "../..");

export interface LocalEnv {
  dir: string;
  env: Record<string, string>;
  cleanup(): void;
}

/** keepaliveMs: null leaves the keepalive settings at their defaults (what users get). */
export function makeLocalEnv(sshd: SshdHandle, opts: { releaseDir: string; workspace: string; extraToml?: string; keepaliveMs?: number | null; host?: string }): LocalEnv {
  const dir = mkdtempSync(join(tmpdir(), "rx-sup-"));
  const home = join(dir, "home");
  const rxHome = join(dir, "reasonix");
  mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
  mkdirSync(rxHome, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(rxHome, "config.toml"),
    [
      "# test config",
      "[remote]",
      ...(opts.keepaliveMs === null ? [] : [`keepalive_interval_ms = ${opts.keepaliveMs ?? 1000}`, "keepalive_count_max = 2"]),
      "",
      "[[remote.hosts]]",
      'name = "box"',
      `host = "${opts.host ?? sshd.host}"`,
      `port = ${sshd.port}`,
      `user = "${sshd.user}"`,
      `identity_file = "${sshd.clientKey}"`,
      `workspace = "${opts.workspace}"`,
      'serve_install = "auto"',
      opts.extraToml ?? "",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  return {
    dir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      REASONIX_HOME: rxHome,
      NO_COLOR: "1",
      LANG: "C.UTF-8",
      REASONIX_RELEASE_DIR: opts.releaseDir,
      // Level 3 keeps the first upload quick in tests; the benchmark uses the default.
      REASONIX_REMOTE_ZSTD_LEVEL: "3",
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface SupervisorRig {
  readonly sshd: SshdHandle;
  readonly build: TestBuild;
  readonly env: LocalEnv;
}

/**
 * In a describe block: the compiled test build and a real sshd (started
 * together), ~/<workspace> made on it, and a local env whose host "box" is that
 * sshd; stopped and removed after the block.
 */
export function supervisorRig(workspace: string, sshdOpts: SshdOptions = {}): SupervisorRig {
  const rig = {} as { sshd: SshdHandle; build: TestBuild; env: LocalEnv };
  beforeAll(async () => {
    [rig.build, rig.sshd] = await Promise.all([buildTestBinary(), startSshd(sshdOpts)]);
    rig.sshd.runAsUser(`mkdir -p ~/${workspace}`);
    rig.env = makeLocalEnv(rig.sshd, { releaseDir: rig.build.releaseDir, workspace: `~/${workspace}` });
  }, BUILD_HOOK_MS);
  afterAll(async () => {
    await rig.sshd?.stop();
    rig.env?.cleanup();
  });
  return rig;
}

export interface Running {
  child: ChildProcess;
  events: Record<string, any>[];
  stderr(): string;
  /** Resolve with the first event (after `from`) matching, or reject after `timeoutMs`. */
  waitFor(pred: (e: Record<string, any>) => boolean, timeoutMs: number, from?: number): Promise<Record<string, any>>;
  exited: Promise<number | null>;
}

export function startConnect(env: LocalEnv, args: string[] = []): Running {
  const child = spawn(process.execPath, [join(ROOT, "cli/main.ts"), "remote", "connect", "box", "--json", "--accept-new", ...args], {
    cwd: env.dir,
    env: env.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const events: Record<string, any>[] = [];
  const waiters = new Set<() => void>();
  let buf = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        events.push(JSON.parse(line));
      } catch {
        events.push({ event: "non-json", line });
      }
      for (const w of waiters) w();
    }
  });
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => {
    for (const w of waiters) w();
    r(code);
  }));
  return {
    child,
    events,
    stderr: () => err,
    exited,
    waitFor(pred, timeoutMs, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = events.slice(from).find(pred);
          if (hit) {
            cleanup();
            resolve(hit);
          } else if (child.exitCode !== null) {
            cleanup();
            reject(new Error(`connect exited (${child.exitCode}) first; events: ${JSON.stringify(events)}\nstderr: ${err}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out; events: ${JSON.stringify(events)}\nstderr: ${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** SIGINT the supervisor and return its exit code (SIGKILL after 10 s). */
export async function interrupt(r: Running): Promise<number | null> {
  if (r.child.exitCode !== null) return r.child.exitCode;
  r.child.kill("SIGINT");
  const t = setTimeout(() => r.child.kill("SIGKILL"), 10_000);
  const code = await r.exited;
  clearTimeout(t);
  return code;
}

/** Plain HTTP GET to a local port (through the tunnel). */
export async function httpGet(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: res.status, body: await res.text() };
}
