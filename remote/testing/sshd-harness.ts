/**
 * Test harness: a real OpenSSH sshd on loopback (or inside a network namespace)
 * with generated host keys, a throw-away login user and a generated client key.
 *
 * Shared by every remote test and benchmark. Needs root (to create the user and
 * to let sshd switch to it) and /usr/sbin/sshd; `sshdUnavailable()` says why not,
 * and tests skip loudly with that reason.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

export const SSHD = "/usr/sbin/sshd";

export interface SshdOptions {
  /** Enable PasswordAuthentication and give the user this password. */
  password?: string;
  /** Login shell of the test user (e.g. /usr/bin/zsh). Default /bin/sh. */
  loginShell?: string;
  /** Run sshd inside this existing network namespace (`ip netns exec`). */
  netns?: string;
  /** Address to listen on (default 127.0.0.1; inside a netns, the veth address). */
  listenAddress?: string;
  /** Fixed port (default: a free loopback port, or 22 inside a netns). */
  port?: number;
  /** Encrypt the generated client key with this passphrase. */
  clientKeyPassphrase?: string;
  /** Reuse the user (and client key) of another harness instead of creating one. */
  shareUserWith?: SshdHandle;
  /** Extra sshd_config lines. */
  extraConfig?: string[];
  /** Host key types to generate (default ed25519 and rsa). */
  hostKeyTypes?: ("ed25519" | "rsa" | "ecdsa")[];
  /**
   * Commands the remote must not have (e.g. `setsid`, absent on macOS): sshd runs in
   * its own mount namespace where each one's file is covered by an empty,
   * non-executable file, so `command -v` finds nothing. Needs `unshare`.
   */
  hideCommands?: string[];
}

export interface HostKey {
  type: string;
  path: string;
  /** `ssh-ed25519 AAAA…` (no comment). */
  publicKey: string;
}

export interface SshdHandle {
  host: string;
  port: number;
  user: string;
  uid: number;
  home: string;
  /** Private key authorised for `user`. */
  clientKey: string;
  clientPublicKey: string;
  hostKeys: HostKey[];
  /** The harness's private scratch directory (removed on stop). */
  dir: string;
  configPath: string;
  /** sshd's stderr so far (it runs with -e). */
  log(): string;
  /** known_hosts lines for every host key, in OpenSSH format. */
  knownHostsLines(): string[];
  /** Generate fresh host keys and restart sshd on the same port. */
  rotateHostKeys(): Promise<void>;
  /** Run a command as the test user (via runuser), returning stdout. */
  runAsUser(cmd: string): string;
  stop(): Promise<void>;
}

/** Why the harness cannot run here, or null when it can. */
export function sshdUnavailable(): string | null {
  if (typeof process.getuid === "function" && process.getuid() !== 0) return "not running as root (the sshd harness creates a login user)";
  if (!existsSync(SSHD)) return `${SSHD} not installed (apt-get install openssh-server)`;
  for (const tool of ["ssh-keygen", "useradd", "userdel"]) {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    } catch {
      return `${tool} not found`;
    }
  }
  return null;
}

/** Print a loud skip reason once per file and return true when tests must skip. */
export function skipWithoutSshd(what: string): boolean {
  const why = sshdUnavailable();
  if (why) console.warn(`SKIPPED ${what}: ${why}`);
  return why !== null;
}

export async function freeLoopbackPort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const keygen = (args: string[]) => execFileSync("ssh-keygen", ["-q", ...args], { stdio: ["ignore", "ignore", "pipe"] });

function generateHostKeys(dir: string, types: string[]): HostKey[] {
  return types.map((type) => {
    const path = join(dir, `ssh_host_${type}_key`);
    rmSync(path, { force: true });
    rmSync(`${path}.pub`, { force: true });
    keygen(["-t", type, ...(type === "rsa" ? ["-b", "2048"] : []), "-N", "", "-C", "", "-f", path]);
    const publicKey = readFileSync(`${path}.pub`, "utf8").trim().split(/\s+/).slice(0, 2).join(" ");
    return { type, path, publicKey };
  });
}

interface UserInfo {
  name: string;
  uid: number;
  gid: number;
  home: string;
  clientKey: string;
  clientPublicKey: string;
  owned: boolean;
}

function createUser(dir: string, opts: SshdOptions): UserInfo {
  const name = `rxt${process.pid.toString(36)}${randomBytes(3).toString("hex")}`.slice(0, 30);
  const home = join(dir, "home", name);
  mkdirSync(join(dir, "home"), { mode: 0o755 });
  // `*` (not `!`): sshd without PAM refuses a locked account but accepts a password-less one for keys.
  execFileSync("useradd", ["-M", "-d", home, "-s", opts.loginShell ?? "/bin/sh", "-p", "*", "-U", name], { stdio: ["ignore", "ignore", "pipe"] });
  const ids = execFileSync("id", ["-u", name]).toString().trim();
  const gid = Number(execFileSync("id", ["-g", name]).toString().trim());
  const uid = Number(ids);
  mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
  chmodSync(home, 0o755);
  if (opts.password !== undefined) {
    execFileSync("chpasswd", [], { input: `${name}:${opts.password}\n`, stdio: ["pipe", "ignore", "pipe"] });
  }
  // Keep interactive shell setup quiet (zsh's new-user wizard, tcsh greetings).
  writeFileSync(join(home, ".zshrc"), "# test user\n");
  const clientDir = join(dir, "client");
  mkdirSync(clientDir, { mode: 0o700 });
  const clientKey = join(clientDir, "id_ed25519");
  keygen(["-t", "ed25519", "-N", opts.clientKeyPassphrase ?? "", "-C", `${name}@reasonix-test`, "-f", clientKey]);
  const clientPublicKey = readFileSync(`${clientKey}.pub`, "utf8").trim();
  writeFileSync(join(home, ".ssh", "authorized_keys"), `${clientPublicKey}\n`, { mode: 0o600 });
  for (const p of [home, join(home, ".ssh"), join(home, ".ssh", "authorized_keys"), join(home, ".zshrc")]) chownSync(p, uid, gid);
  return { name, uid, gid, home, clientKey, clientPublicKey, owned: true };
}

function killUserProcesses(user: string): void {
  let pids: number[] = [];
  try {
    pids = execFileSync("pgrep", ["-u", user]).toString().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return; // pgrep exits 1 when nothing matches
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

function removeUser(user: string): void {
  killUserProcesses(user);
  for (let i = 0; i < 5; i++) {
    try {
      execFileSync("userdel", [user], { stdio: ["ignore", "ignore", "pipe"] });
      return;
    } catch {
      // userdel refuses while a process of the user still exits; give it a moment.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      killUserProcesses(user);
    }
  }
}

const live = new Set<() => void>();
let exitHookInstalled = false;
function onExitCleanup(fn: () => void): () => void {
  live.add(fn);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const f of live) {
        try {
          f();
        } catch {}
      }
    });
  }
  return () => live.delete(fn);
}

export async function startSshd(opts: SshdOptions = {}): Promise<SshdHandle> {
  const why = sshdUnavailable();
  if (why) throw new Error(`sshd harness unavailable: ${why}`);
  const dir = mkdtempSync(join(tmpdir(), "rx-sshd-"));
  // The user's home lives below `dir`; sshd (as the user) must be able to traverse it.
  chmodSync(dir, 0o755);
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const shared = opts.shareUserWith;
  const user: UserInfo = shared
    ? { name: shared.user, uid: shared.uid, gid: 0, home: shared.home, clientKey: shared.clientKey, clientPublicKey: shared.clientPublicKey, owned: false }
    : createUser(dir, opts);
  const host = opts.listenAddress ?? "127.0.0.1";
  const types = opts.hostKeyTypes ?? ["ed25519", "rsa"];
  let hostKeys = generateHostKeys(dir, types);
  let port = opts.port ?? (opts.netns ? 2222 : await freeLoopbackPort(host));
  const configPath = join(dir, "sshd_config");
  const writeConfig = () =>
    writeFileSync(
      configPath,
      [
        `Port ${port}`,
        `ListenAddress ${host}`,
        ...hostKeys.map((k) => `HostKey ${k.path}`),
        `PidFile ${join(dir, "sshd.pid")}`,
        "AuthorizedKeysFile .ssh/authorized_keys",
        "PubkeyAuthentication yes",
        `PasswordAuthentication ${opts.password !== undefined ? "yes" : "no"}`,
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        // Home and ~/.ssh are created with the modes StrictModes demands.
        "StrictModes yes",
        "PermitRootLogin no",
        `AllowUsers ${user.name}`,
        "AllowTcpForwarding yes",
        "AllowStreamLocalForwarding yes",
        "GatewayPorts no",
        "PermitTTY yes",
        "PrintMotd no",
        "PrintLastLog no",
        "UseDNS no",
        "MaxStartups 100:30:200",
        "MaxSessions 64",
        "LogLevel VERBOSE",
        "Subsystem sftp internal-sftp",
        ...(opts.extraConfig ?? []),
        "",
      ].join("\n"),
    );
  writeConfig();

  let child: ChildProcess | null = null;
  let stderr = "";
  const launch = async (): Promise<void> => {
    for (let attempt = 0; attempt < 5; attempt++) {
      let argv = [SSHD, "-D", "-e", "-f", configPath];
      if (opts.hideCommands?.length) {
        const blank = join(dir, "hidden-command");
        writeFileSync(blank, "", { mode: 0o644 });
        const paths = [...new Set(opts.hideCommands.flatMap((c) => {
          try {
            return execFileSync("sh", ["-c", `for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do [ -x "$d/${c}" ] && readlink -f "$d/${c}"; done; true`]).toString().split("\n").filter(Boolean);
          } catch {
            return [];
          }
        }))];
        const mounts = paths.map((p) => `mount --bind "$0" '${p}' &&`).join(" ");
        argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c", `${mounts} exec "$@"`, blank, ...argv];
      }
      const cmd = opts.netns ? ["ip", "netns", "exec", opts.netns, ...argv] : argv;
      const proc = spawn(cmd[0]!, cmd.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
      child = proc;
      let mark = stderr.length;
      const ready = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 10_000);
        proc.stderr!.on("data", (d: Buffer) => {
          stderr += d.toString();
          if (/Server listening on/.test(stderr.slice(mark))) {
            clearTimeout(timer);
            resolve(true);
          }
        });
        proc.once("exit", () => {
          clearTimeout(timer);
          resolve(false);
        });
      });
      if (ready) return;
      proc.kill("SIGKILL");
      child = null;
      const addrInUse = /Address already in use/.test(stderr.slice(mark));
      if (!addrInUse || opts.port !== undefined) break;
      port = await freeLoopbackPort(host); // lost the race for the port: pick another
      writeConfig();
      mark = stderr.length;
    }
    throw new Error(`sshd did not start:\n${stderr}`);
  };

  const stopChild = async () => {
    const c = child as ChildProcess | null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once("exit", () => resolve());
      c.kill("SIGTERM");
      setTimeout(() => c.kill("SIGKILL"), 3000).unref();
    });
  };

  const syncCleanup = () => {
    const c = child as ChildProcess | null;
    if (c && c.exitCode === null) c.kill("SIGKILL");
    if (user.owned) removeUser(user.name);
    rmSync(dir, { recursive: true, force: true });
  };
  const unregister = onExitCleanup(syncCleanup);

  try {
    await launch();
  } catch (e) {
    syncCleanup();
    unregister();
    throw e;
  }

  const handle: SshdHandle = {
    host,
    get port() {
      return port;
    },
    user: user.name,
    uid: user.uid,
    home: user.home,
    clientKey: user.clientKey,
    clientPublicKey: user.clientPublicKey,
    get hostKeys() {
      return hostKeys;
    },
    dir,
    configPath,
    log: () => stderr,
    knownHostsLines: () => hostKeys.map((k) => `${port === 22 ? host : `[${host}]:${port}`} ${k.publicKey}`),
    async rotateHostKeys() {
      await stopChild();
      hostKeys = generateHostKeys(dir, types);
      writeConfig();
      await launch();
    },
    runAsUser(cmd: string) {
      return execFileSync("runuser", ["-u", user.name, "--", "sh", "-c", cmd], { cwd: "/", env: { PATH: process.env.PATH, HOME: user.home } }).toString();
    },
    async stop() {
      await stopChild();
      syncCleanup();
      unregister();
    },
  };
  return handle;
}
