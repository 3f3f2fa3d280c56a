// What a command can reach besides files: the environment it inherits and
// the host's unix sockets. Real bwrap, a real ssh-agent holding a real key,
// real listening sockets outside /run and /tmp.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { createPathPolicy, type PathPolicy } from "../../policy/paths.ts";
import { createSessionTmpDir, probeSandbox, removeSessionTmpDir, runShell, type SandboxMode } from "../index.ts";
import { unixSocketFilter } from "../seccomp.ts";

const status = await probeSandbox();
const noBwrap = process.platform !== "linux" || !status.available;
if (noBwrap) console.warn(`SKIPPED sandbox env/socket suite (bwrap half): ${status.cause ?? process.platform}`);
const hasAgent = ["ssh-agent", "ssh-add", "ssh-keygen"].every((b) => Bun.which(b));
if (!hasAgent) console.warn("SKIPPED ssh-agent cases: ssh-agent, ssh-add or ssh-keygen is not installed (Debian: openssh-client)");
// perl (with IO::Socket::UNIX, in Debian's perl-base) makes the connections; python3 adds a second client when present.
const hasPerl = Bun.which("perl") !== null;
const hasPython = Bun.which("python3") !== null;
if (!hasPerl) console.warn("SKIPPED unix-socket cases: perl is not installed");

const scratchParent = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
let base: string;
let ws: string;
let home: string;
let policy: PathPolicy;
let sessionTmp: string;
const cleanups: (() => void)[] = [];

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(scratchParent, "rx-envsock-")));
  ws = join(base, "ws");
  home = join(base, "home");
  for (const d of [ws, home, join(base, "rxhome")]) mkdirSync(d, { recursive: true });
  policy = createPathPolicy({ cwd: ws, reasonixHome: join(base, "rxhome") });
  sessionTmp = createSessionTmpDir();
});
afterAll(() => {
  for (const c of cleanups.reverse()) {
    try {
      c();
    } catch {}
  }
  removeSessionTmpDir(sessionTmp);
  rmSync(base, { recursive: true, force: true });
});

async function sh(cmd: string, o: { mode?: SandboxMode; network?: boolean; env?: Record<string, string>; passthrough?: string[]; sshAgent?: boolean; strip?: string[] } = {}) {
  const res = await runShell(cmd, {
    policy,
    mode: o.mode ?? "enforce",
    network: o.network ?? false,
    sessionTmpDir: sessionTmp,
    cwd: ws,
    timeoutMs: 20_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...o.env },
    envPassthrough: o.passthrough,
    sshAgent: o.sshAgent,
    stripEnv: o.strip,
  });
  if (!res.ok) throw new Error(res.refusal.message);
  return res;
}

// The variables the issue found leaking through the old name-pattern filter.
const LEAKY: Record<string, string> = {
  PGPASSWORD: "pg-secret-1",
  MYSQL_PWD: "mysql-secret-2",
  DATABASE_URL: "postgres://u:pw-secret-3@db.example.invalid/app",
  GITHUB_PAT: "ghp_secret4",
  NPM_CONFIG__AUTH: "npm-secret-5",
  CI_JOB_JWT: "jwt-secret-6",
  OPENAI_KEY: "openai-secret-7",
  STRIPE_KEY: "sk_live_secret8",
};
const ALLOWED: Record<string, string> = {
  USER: "u1", LOGNAME: "u1", SHELL: "/bin/bash", LANG: "C.UTF-8", LC_ALL: "C.UTF-8", LC_TIME: "C", TERM: "xterm-256color",
  TZ: "UTC", EDITOR: "vi", PAGER: "less", COLUMNS: "101", LINES: "33",
};

for (const mode of ["off", "enforce"] as const) {
  describe.skipIf(mode === "enforce" && noBwrap)(`bash environment is an allowlist (${mode})`, () => {
    test("credential-like variables the old filter let through are absent from `env`", async () => {
      const r = await sh("env", { mode, env: { ...LEAKY, ...ALLOWED, SOME_RANDOM_SETTING: "r9" } });
      for (const [k, v] of Object.entries(LEAKY)) {
        expect({ k, leaked: r.output.includes(v) || r.output.includes(`${k}=`) }).toEqual({ k, leaked: false });
      }
      expect(r.output).not.toContain("SOME_RANDOM_SETTING");
      for (const [k, v] of Object.entries(ALLOWED)) expect(r.output).toContain(`${k}=${v}\n`);
      expect(r.output).toContain(`HOME=${home}\n`);
      expect(r.output).toMatch(/^PATH=/m);
    });

    test("env_passthrough adds names, but never Reasonix's own keys or control variables", async () => {
      const r = await sh("env", {
        mode,
        env: { NODE_ENV: "test", GH_TOKEN: "gh-passed", DEEPSEEK_API_KEY: "sk-own-1", MY_PROVIDER_KEY: "sk-own-2", REASONIX_HOME: "/state" },
        passthrough: ["NODE_ENV", "GH_TOKEN", "DEEPSEEK_API_KEY", "MY_PROVIDER_KEY", "REASONIX_HOME", "SSH_AUTH_SOCK"],
        strip: ["MY_PROVIDER_KEY"],
      });
      expect(r.output).toContain("NODE_ENV=test\n");
      expect(r.output).toContain("GH_TOKEN=gh-passed\n");
      for (const own of ["sk-own-1", "sk-own-2", "REASONIX_HOME"]) expect(r.output).not.toContain(own);
    });

    test("SSH_AUTH_SOCK is not passed unless [sandbox] ssh_agent = true", async () => {
      const r = await sh("env", { mode, env: { SSH_AUTH_SOCK: "/var/tmp/agent.sock" }, passthrough: ["SSH_AUTH_SOCK"] });
      expect(r.output).not.toContain("SSH_AUTH_SOCK");
    });
  });
}

describe.skipIf(noBwrap)("through the CLI (`reasonix sandbox run`)", () => {
  test("the user config's env_passthrough applies; everything else outside the allowlist stays out", () => {
    const rxHome = join(base, "rxhome-cli");
    mkdirSync(rxHome, { recursive: true });
    writeFileSync(join(rxHome, "config.toml"), '[sandbox]\nenv_passthrough = ["NODE_ENV"]\n');
    const r = spawnSync(process.execPath, [join(import.meta.dir, "..", "..", "..", "cli", "main.ts"), "sandbox", "run", "--", "env"], {
      cwd: ws,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, REASONIX_HOME: rxHome, NODE_ENV: "production", ...LEAKY, NO_COLOR: "1" },
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("NODE_ENV=production\n");
    for (const v of Object.values(LEAKY)) expect(r.stdout).not.toContain(v);
  });
});

describe("the seccomp program", () => {
  test("is built for x86_64 and aarch64, and refused (fail closed) elsewhere", () => {
    for (const arch of ["x64", "arm64"]) {
      const f = unixSocketFilter(arch);
      expect(f.ok).toBe(true);
      if (f.ok) expect(f.program.length % 8).toBe(0);
    }
    expect(unixSocketFilter("riscv64")).toEqual({ ok: false, cause: expect.stringContaining("riscv64") });
  });
});

/** A host process listening on a pathname unix socket; counts connections. */
async function listen(path: string): Promise<{ server: Server; hits: () => number }> {
  let hits = 0;
  const server = createServer((s) => {
    hits++;
    s.end("hello\n");
  });
  await new Promise<void>((res, rej) => server.once("error", rej).listen(path, () => res()));
  cleanups.push(() => server.close());
  return { server, hits: () => hits };
}

const perlConnect = (path: string) =>
  `perl -MIO::Socket::UNIX -e 'my $s = IO::Socket::UNIX->new(Peer => "${path}") or die "no: $!\\n"; print "connected: ", scalar(<$s>)'`;
const pyConnect = (path: string) =>
  `python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1]); print("connected:", s.recv(10))' '${path}'`;

describe.skipIf(noBwrap || !hasPerl)("host unix sockets with network off", () => {
  /** A scratch dir under the real home directory (the Docker-socket case), removed afterwards. */
  const homeScratch = (): string | null => {
    try {
      const d = realpathSync(mkdtempSync(join(homedir(), ".rx-envsock-")));
      cleanups.push(() => rmSync(d, { recursive: true, force: true }));
      return d;
    } catch (e) {
      console.warn(`SKIPPED home-directory socket case: cannot create a dir under ${homedir()} (${e})`);
      return null;
    }
  };

  test("a listening socket under the home directory is unreachable (reachable with network on, as documented)", async () => {
    const dir = homeScratch();
    if (!dir) return;
    const path = join(dir, "docker-like.sock");
    const l = await listen(path);
    const tries = [perlConnect(path), ...(hasPython ? [pyConnect(path)] : [])].join("; ");
    const off = await sh(tries);
    expect(l.hits()).toBe(0);
    expect(off.output).not.toContain("connected");
    const on = await sh(tries, { network: true });
    expect(on.output).toContain("connected");
    expect(l.hits()).toBeGreaterThan(0);
  });

  test("a listening socket under /var/tmp is unreachable, network off or on", async () => {
    const path = join(base, "var-tmp-daemon.sock");
    const l = await listen(path);
    const tries = [perlConnect(path), ...(hasPython ? [pyConnect(path)] : [])].join("; ");
    for (const network of [false, true]) {
      const r = await sh(tries, { network });
      expect(r.output).not.toContain("connected");
    }
    expect(l.hits()).toBe(0);
  });

  test("socketpair and loopback TCP inside the sandbox keep working", async () => {
    const r = await sh(`perl -MSocket -MIO::Handle -e 'socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, PF_UNSPEC) or die "no: $!\\n"; $a->autoflush(1); print $a "x\\n"; print "pair ", scalar(<$b>)'; echo piped | cat`);
    expect(r.output).toContain("pair x");
    expect(r.output).toContain("piped");
  });

  test("a FIFO under /var/tmp with a host reader cannot be written", async () => {
    const fifo = join(base, "host.fifo");
    spawnSync("mkfifo", [fifo]);
    // A host reader waiting on the FIFO (a read-only mount does not stop writing to a FIFO).
    const reader = Bun.spawn(["timeout", "10", "cat", fifo], { stdout: "pipe", stderr: "ignore" });
    cleanups.push(() => reader.kill("SIGKILL"));
    // Inside, /var/tmp is an empty tmpfs: the write lands in a throw-away file, or fails.
    await sh(`timeout 3 sh -c 'echo pwned-via-fifo > ${fifo}' 2>&1`);
    // Release the reader from the host side, then look at what it got.
    await Bun.write(fifo, "host-end\n");
    const got = await new Response(reader.stdout).text();
    expect(got).not.toContain("pwned-via-fifo");
  });
});

describe.skipIf(noBwrap || !hasAgent)("a real ssh-agent with a loaded key", () => {
  let agentSock: string;
  let agentPid = 0;
  beforeAll(() => {
    const dir = join(base, "agent-dir");
    mkdirSync(dir, { mode: 0o700 });
    agentSock = join(dir, "agent.sock");
    const a = spawnSync("ssh-agent", ["-a", agentSock, "-s"], { encoding: "utf8" });
    agentPid = Number(/SSH_AGENT_PID=(\d+)/.exec(a.stdout)?.[1] ?? 0);
    cleanups.push(() => agentPid && process.kill(agentPid, "SIGTERM"));
    const key = join(dir, "id_ed25519");
    spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key, "-C", "rx-test-key"]);
    const add = spawnSync("ssh-add", [key], { env: { ...process.env, SSH_AUTH_SOCK: agentSock }, encoding: "utf8" });
    if (add.status !== 0) throw new Error(`ssh-add failed: ${add.stderr}`);
  });

  test("control: the host sees the key", () => {
    const l = spawnSync("ssh-add", ["-l"], { env: { ...process.env, SSH_AUTH_SOCK: agentSock }, encoding: "utf8" });
    expect(l.stdout).toContain("rx-test-key");
  });

  test("by default: the variable is gone and the socket unreachable, even named by hand", async () => {
    const r = await sh(`echo "sock=[$SSH_AUTH_SOCK]"; ssh-add -l; SSH_AUTH_SOCK='${agentSock}' ssh-add -l; echo rc=$?`, { env: { SSH_AUTH_SOCK: agentSock } });
    expect(r.output).toContain("sock=[]");
    expect(r.output).not.toContain("rx-test-key");
    expect(r.output).not.toContain("rc=0");
  });

  test("ssh_agent = true with network on: the key is usable through the bound socket", async () => {
    const r = await sh('echo "sock=$SSH_AUTH_SOCK"; ssh-add -l', { env: { SSH_AUTH_SOCK: agentSock }, sshAgent: true, network: true });
    expect(r.output).toContain("sock=/run/reasonix/ssh-agent.sock");
    expect(r.output).toContain("rx-test-key");
  });

  test("ssh_agent = true with network off: still unreachable (no unix sockets at all)", async () => {
    const r = await sh("ssh-add -l; echo rc=$?", { env: { SSH_AUTH_SOCK: agentSock }, sshAgent: true });
    expect(r.output).not.toContain("rx-test-key");
    expect(r.output).not.toContain("rc=0");
  });
});
