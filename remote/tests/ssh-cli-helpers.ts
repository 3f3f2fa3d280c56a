// Shared by the remote CLI tests: run `reasonix` from source in an isolated HOME
// and REASONIX_HOME, with no TTY and no ssh-agent, so nothing on the machine leaks in.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

export interface CliEnv {
  dir: string;
  home: string;
  rxHome: string;
  env: Record<string, string>;
  run(args: string[], opts?: { input?: string; env?: Record<string, string> }): { code: number; stdout: string; stderr: string };
  /** Like `run`, but asynchronous: the test can act (signal, cut the link) while it runs. */
  start(args: string[], opts?: { env?: Record<string, string>; cwd?: string }): RunningCli;
  cleanup(): void;
}

export interface RunningCli {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

export function makeCliEnv(prefix = "rx-remote-cli-"): CliEnv {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const home = join(dir, "home");
  const rxHome = join(dir, "reasonix");
  mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    REASONIX_HOME: rxHome,
    NO_COLOR: "1",
    LANG: "C.UTF-8",
  };
  return {
    dir,
    home,
    rxHome,
    env,
    run(args, opts = {}) {
      const r = spawnSync(process.execPath, [join(ROOT, "cli/main.ts"), ...args], {
        cwd: dir,
        env: { ...env, ...opts.env },
        input: opts.input ?? "",
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      return { code: r.status ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
    },
    start(args, opts = {}) {
      const child = spawn(process.execPath, [join(ROOT, "cli/main.ts"), ...args], { cwd: opts.cwd ?? dir, env: { ...env, ...opts.env }, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
      // Bounded: a hung child is killed after 60 s so the test fails instead of hanging.
      const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
        child.once("close", (code, signal) => {
          clearTimeout(guard);
          resolve({ code, signal, stdout: out, stderr: err });
        }),
      );
      return { child, stderr: () => err, exited };
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Dial the harness sshd in-process as its test user: no agent, no TTY, host key
 * accepted into `knownHostsFile` (a throwaway file), nothing else trusted.
 */
export async function connectToHarness(
  sshd: import("../testing/sshd-harness.ts").SshdHandle,
  knownHostsFile: string,
  acceptNew = true,
): Promise<import("../ssh/connect.ts").SshConnection> {
  const { connectSsh } = await import("../ssh/connect.ts");
  const { KnownHosts } = await import("../hostkeys/store.ts");
  const { nonInteractive } = await import("../ssh/prompt.ts");
  return connectSsh(
    { label: "box", host: sshd.host, port: sshd.port, user: sshd.user, identityFiles: [sshd.clientKey] },
    { acceptNew, knownHosts: new KnownHosts({ systemFiles: [], managedFile: knownHostsFile }), prompter: nonInteractive, secrets: new Map(), agentSocket: null, warn: () => {} },
  );
}
