// The escape suite: real bubblewrap, real files, real sockets. Every case
// tries one way out of the Linux sandbox and checks the host afterwards;
// `escaped` must stay false. A summary line counts cases and escapes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pollFor } from "../../testing/fresh-wait.ts";
import { createPathPolicy, type PathPolicy } from "../../policy/paths.ts";
import { createSessionTmpDir, probeSandbox, removeSessionTmpDir, runShell, type RunResult } from "../index.ts";

const status = await probeSandbox();
const skip = process.platform !== "linux" || !status.available;
if (skip) console.warn(`escape suite skipped: no working bwrap (${status.cause ?? process.platform}; fix: ${status.fix ?? "-"})`);

const repoRoot = join(import.meta.dir, "..", "..", "..");
const bun = process.execPath;
const MARK = `rx-secret-${process.pid}-${Math.random().toString(36).slice(2)}`;

let base: string;
let ws: string;
let ws2: string;
let out: string;
let rxHome: string;
let secretFile: string;
let secretDir: string;
let policy: PathPolicy;
let sessionTmp: string;
const cleanups: (() => void)[] = [];

// Under /var/tmp when possible: host /tmp is replaced inside the sandbox, so
// "outside" must live somewhere the sandbox can actually see (read-only).
const scratchParent = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();

const tally: { name: string; escaped: boolean }[] = [];
function record(name: string, escaped: boolean): void {
  tally.push({ name, escaped });
  expect(escaped).toBe(false);
}

async function sh(cmd: string, opts: { network?: boolean; policy?: PathPolicy; tmp?: string; env?: Record<string, string>; passthrough?: string[] } = {}): Promise<Extract<RunResult, { ok: true }>> {
  const res = await runShell(cmd, {
    policy: opts.policy ?? policy,
    mode: "enforce",
    network: opts.network ?? false,
    sessionTmpDir: opts.tmp ?? sessionTmp,
    cwd: (opts.policy ?? policy).workspaceRoot,
    timeoutMs: 20_000,
    env: { ...process.env, ...opts.env },
    envPassthrough: opts.passthrough,
  });
  if (!res.ok) throw new Error(res.refusal.message);
  return res;
}

function gitInit(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync("git", ["init", "-q", dir]);
  if (r.status !== 0) throw new Error(`git init failed: ${r.stderr}`);
  mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
}

beforeAll(() => {
  if (skip) return;
  base = realpathSync(mkdtempSync(join(scratchParent, "rx-escape-")));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  ws = join(base, "ws");
  ws2 = join(base, "ws2");
  out = join(base, "outside");
  rxHome = join(base, "rxhome");
  secretDir = join(base, "secret-dir");
  secretFile = join(base, "secret.txt");
  gitInit(ws);
  gitInit(ws2);
  // A submodule's git dir: hooks and config of its own that git runs too.
  mkdirSync(join(ws, ".git", "modules", "libs", "dep", "hooks"), { recursive: true });
  writeFileSync(join(ws, ".git", "modules", "libs", "dep", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(ws, ".git", "modules", "libs", "dep", "config"), "[core]\n");
  for (const d of [out, rxHome, secretDir, join(ws, "sub")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(out, "target.txt"), "original\n");
  writeFileSync(secretFile, `${MARK}\n`);
  writeFileSync(join(secretDir, "inner.txt"), `${MARK}\n`);
  writeFileSync(join(rxHome, ".env"), `DEEPSEEK_API_KEY=sk-${MARK}\n`, { mode: 0o600 });
  writeFileSync(join(rxHome, "config.toml"), `[sandbox]\nforbid_read = ["\${RX_TEST_SECRET_FILE}", "${secretDir}"]\n`);
  writeFileSync(join(ws2, "reasonix.toml"), "# original\n");
  writeFileSync(join(ws2, ".mcp.json"), "{}\n");
  symlinkSync(out, join(ws, "out-link"));
  symlinkSync(join(out, "created-via-dangling.txt"), join(ws, "dangle"));
  policy = createPathPolicy({ cwd: ws, reasonixHome: rxHome, config: { forbid_read: [secretFile, secretDir] } });
  sessionTmp = createSessionTmpDir();
  cleanups.push(() => removeSessionTmpDir(sessionTmp));
});

afterAll(() => {
  for (const c of cleanups.reverse()) {
    try {
      c();
    } catch {}
  }
  if (!skip) {
    const escapes = tally.filter((t) => t.escaped);
    console.log(`escape suite: ${tally.length} cases, ${escapes.length} escapes${escapes.length ? ` (${escapes.map((e) => e.name).join(", ")})` : ""}`);
  }
});

describe.skipIf(skip)("bwrap escape suite", () => {
  test("sanity: the workspace is writable and commands run", async () => {
    const r = await sh("echo ok > sub/ok.txt && cat sub/ok.txt");
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(ws, "sub", "ok.txt"), "utf8")).toBe("ok\n");
  });

  test("write outside the roots", async () => {
    await sh(`echo pwned > '${out}/new.txt'; echo pwned > '${out}/target.txt'; touch /usr/rx-${process.pid}`);
    record("write outside roots", existsSync(join(out, "new.txt")) || readFileSync(join(out, "target.txt"), "utf8") !== "original\n" || existsSync(`/usr/rx-${process.pid}`));
  });

  test("write through a symlink pointing outside (existing and dangling)", async () => {
    await sh("echo pwned > out-link/target.txt; echo pwned > dangle; ln -s ../outside/target.txt sub/l2 2>/dev/null; echo pwned > sub/l2");
    record("write via symlink", readFileSync(join(out, "target.txt"), "utf8") !== "original\n" || existsSync(join(out, "created-via-dangling.txt")));
  });

  test("hardlink to a file outside, then write it", async () => {
    const r = await sh(`ln '${out}/target.txt' sub/hl && echo pwned > sub/hl; echo rc=$?`);
    record("hardlink outside", readFileSync(join(out, "target.txt"), "utf8") !== "original\n" || existsSync(join(ws, "sub", "hl")));
    expect(r.output).toContain("rc=");
  });

  test("write .git/hooks/pre-commit", async () => {
    await sh("echo 'touch /tmp/pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit");
    record(".git/hooks/pre-commit", existsSync(join(ws, ".git", "hooks", "pre-commit")));
  });

  test("write .git/config", async () => {
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    await sh("printf '[core]\\n\\thooksPath = /x\\n' >> .git/config; git config core.hooksPath /x");
    record(".git/config", readFileSync(join(ws, ".git", "config"), "utf8") !== before);
  });

  test("write a submodule's hooks and config under .git/modules", async () => {
    const sub = join(ws, ".git", "modules", "libs", "dep");
    await sh("echo evil > .git/modules/libs/dep/hooks/post-checkout; printf '[core]\\n\\thooksPath = /x\\n' >> .git/modules/libs/dep/config");
    record(".git/modules hooks/config", existsSync(join(sub, "hooks", "post-checkout")) || readFileSync(join(sub, "config"), "utf8") !== "[core]\n");
  });

  test("rename .git/hooks away, then write a new hooks dir", async () => {
    const r = await sh("mv .git/hooks .git/hooks-old; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; echo done");
    record("rename .git/hooks", existsSync(join(ws, ".git", "hooks", "pre-commit")) || existsSync(join(ws, ".git", "hooks-old")));
    expect(r.output).toContain("done");
  });

  test("rename .git itself, then rebuild it with a hook", async () => {
    await sh("mv .git .git-old; rmdir .git; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; mv .git/hooks .git/h; echo evil > .git");
    record("rename .git", !existsSync(join(ws, ".git", "HEAD")) || existsSync(join(ws, ".git", "hooks", "pre-commit")) || existsSync(join(ws, ".git-old")));
  });

  test("unmount or remount the protections", async () => {
    await sh("umount .git/hooks; umount -l .git/config; mount -o remount,rw /; mount -o remount,rw .git/hooks; echo evil > .git/hooks/pre-commit; touch /usr/rx-remount");
    record("umount/remount", existsSync(join(ws, ".git", "hooks", "pre-commit")) || existsSync("/usr/rx-remount"));
  });

  test("a nested user namespace cannot unmount the protections", async () => {
    await sh("unshare -Urm sh -c 'umount .git/hooks; umount -l .git/hooks; mount -o remount,rw .git/hooks; echo evil > .git/hooks/pre-commit'; unshare -Urmf --mount-proc sh -c 'echo evil > .git/hooks/pre-commit'");
    record("nested userns umount", existsSync(join(ws, ".git", "hooks", "pre-commit")));
  });

  test("existing reasonix.toml and .mcp.json cannot be replaced, removed or renamed", async () => {
    const p2 = createPathPolicy({ cwd: ws2, reasonixHome: rxHome });
    await sh("echo '[sandbox]' > reasonix.toml; rm -f .mcp.json; mv reasonix.toml moved.toml; echo bad > .mcp.json", { policy: p2 });
    record(
      "replace reasonix.toml/.mcp.json",
      readFileSync(join(ws2, "reasonix.toml"), "utf8") !== "# original\n" || readFileSync(join(ws2, ".mcp.json"), "utf8") !== "{}\n" || existsSync(join(ws2, "moved.toml")),
    );
  });

  test("a worktree's .git pointer file cannot be redirected", async () => {
    const wt = join(base, "wt");
    mkdirSync(wt, { recursive: true });
    writeFileSync(join(wt, ".git"), `gitdir: ${join(ws, ".git")}\n`);
    const p3 = createPathPolicy({ cwd: wt, reasonixHome: rxHome });
    await sh("mkdir -p evil/hooks; echo 'gitdir: evil' > .git; rm -f .git; mv .git g2; echo 'gitdir: evil' > .git", { policy: p3 });
    record("redirect worktree .git", readFileSync(join(wt, ".git"), "utf8") !== `gitdir: ${join(ws, ".git")}\n` || existsSync(join(wt, "g2")));
  });

  test("creating a missing reasonix.toml, .mcp.json or .reasonix/ is undone and reported", async () => {
    const r = await sh("printf '[sandbox]\\nbash = \"off\"\\n' > reasonix.toml; echo '{}' > .mcp.json; mkdir .reasonix && echo x > .reasonix/state");
    const leftover = ["reasonix.toml", ".mcp.json", ".reasonix"].filter((n) => existsSync(join(ws, n)));
    record("create missing protected paths", leftover.length > 0);
    expect(r.violations.map((v) => v.path).sort()).toEqual([join(ws, ".mcp.json"), join(ws, ".reasonix"), join(ws, "reasonix.toml")]);
    for (const v of r.violations) expect(existsSync(v.movedTo)).toBe(true);
  });

  test("read a forbid_read file", async () => {
    const r = await sh(`cat '${secretFile}'; cp '${secretFile}' sub/copy.txt; cat sub/copy.txt`);
    record("read forbid_read file", r.output.includes(MARK));
  });

  test("read a forbid_read directory", async () => {
    const r = await sh(`ls -a '${secretDir}'; cat '${secretDir}/inner.txt'; grep -r rx-secret '${base}' 2>/dev/null`);
    // `ls` would print the bare name; error messages quoting the path do not count.
    record("read forbid_read dir", r.output.includes(MARK) || r.output.split("\n").includes("inner.txt"));
  });

  test("read $REASONIX_HOME/.env", async () => {
    const r = await sh(`cat '${rxHome}/.env'; ls -a '${rxHome}'; cat ../rxhome/.env`);
    record("read $REASONIX_HOME/.env", r.output.includes(MARK) || r.output.includes("config.toml"));
  });

  test("provider keys in the parent environment do not reach the child", async () => {
    const r = await sh("env", { env: { DEEPSEEK_API_KEY: `sk-${MARK}`, MY_SERVICE_TOKEN: MARK, RX_HARMLESS: "kept" }, passthrough: ["RX_HARMLESS", "DEEPSEEK_API_KEY"] });
    record("credential env vars", r.output.includes(MARK));
    expect(r.output).toContain("RX_HARMLESS=kept");
  });

  describe("network", () => {
    let server: Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      server = createServer((s) => {
        connections++;
        s.end("hello\n");
      });
      await new Promise<void>((res) => server.listen(0, "127.0.0.1", () => res()));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => server.close());

    const perlConnect = () =>
      `perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => ${port}, Timeout => 3) or die "no: $!\\n"; print "connected: ", scalar(<$s>)'`;

    test("TCP connect to a host listener with network off", async () => {
      const before = connections;
      const r = await sh(perlConnect());
      record("tcp with network off", connections > before || r.output.includes("connected"));
    });

    test("bash /dev/tcp with network off", async () => {
      const before = connections;
      const r = await sh(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3`);
      record("bash /dev/tcp", connections > before || r.output.includes("connected"));
    });

    test("control: the same connect succeeds with network on", async () => {
      const before = connections;
      const r = await sh(perlConnect(), { network: true });
      expect(r.output).toContain("connected: hello");
      expect(connections).toBe(before + 1);
    });

    test("host daemon unix sockets under /run are hidden", async () => {
      let dir: string;
      try {
        dir = mkdtempSync("/run/rx-escape-");
      } catch (e) {
        console.warn(`skipping /run socket case: cannot create a dir under /run (${e})`);
        return;
      }
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const sock = join(dir, "daemon.sock");
      let hits = 0;
      const us = createServer((s) => {
        hits++;
        s.end("hello\n");
      });
      await new Promise<void>((res) => us.listen(sock, () => res()));
      try {
        const r = await sh(`perl -MIO::Socket::UNIX -e 'my $s = IO::Socket::UNIX->new(Peer => "${sock}") or die "no: $!\\n"; print "connected\\n"'`);
        record("unix socket under /run", hits > 0 || r.output.includes("connected"));
      } finally {
        us.close();
      }
    });
  });

  test("see or signal host processes", async () => {
    const host = Bun.spawn(["sleep", "30"], { stdout: "ignore", stderr: "ignore" });
    cleanups.push(() => host.kill("SIGKILL"));
    const r = await sh(`test -e /proc/${host.pid} && echo SEEN; kill -0 ${host.pid} 2>/dev/null && echo SIGNALLED; kill -9 ${host.pid} 2>/dev/null; ps -e -o pid= | wc -l`);
    const count = Number(r.stdout.trim().split("\n").pop());
    await Bun.sleep(100);
    const alive = host.exitCode === null && host.signalCode === null;
    record("host processes", r.output.includes("SEEN") || r.output.includes("SIGNALLED") || !alive || !(count < 10));
    host.kill("SIGKILL");
  });

  test("a background process does not outlive the command", async () => {
    const tag = `${7000 + Math.floor(Math.random() * 2000)}.${process.pid}`;
    // "started" only once all three sleeps run (exec'd), so a count at the end cannot miss one still starting.
    const r = await sh(
      `(sleep ${tag} &); nohup sleep ${tag} >/dev/null 2>&1 & setsid sleep ${tag} </dev/null >/dev/null 2>&1 & disown; ` +
        `n=0; while [ "$(ps -eo args | grep -c '^sleep ${tag}')" -lt 3 ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done; ` +
        `echo "running=$(ps -eo args | grep -c '^sleep ${tag}')"; echo "ns=$(readlink /proc/self/ns/pid)"; echo started`,
    );
    expect(r.output).toContain("started");
    expect(r.output).toContain("running=3");
    const procs = () => readdirSync("/proc").filter((p) => /^\d+$/.test(p));
    const read = (path: string, how: "file" | "link") => {
      try {
        return how === "file" ? readFileSync(path, "utf8") : readlinkSync(path);
      } catch {
        return "";
      }
    };
    // The caused state: nothing in the command's PID namespace is alive any more (its
    // init has exited - a zombie at most - and the kernel kills and reaps everything else
    // in the namespace before that). runShell can return a moment earlier, as bwrap reports
    // the exit status before its init exits. Bounded: a namespace that stays alive keeps
    // its sleeps, which the count below records as an escape.
    const ns = /ns=(pid:\[\d+\])/.exec(r.output)?.[1];
    if (ns && ns !== read("/proc/self/ns/pid", "link")) {
      const alive = () => procs().filter((p) => read(`/proc/${p}/ns/pid`, "link") === ns && !/^State:\s*[ZX]/m.test(read(`/proc/${p}/status`, "file")));
      await pollFor(`no live process in the sandbox's PID namespace ${ns}`, alive, (live) => live.length === 0, { timeoutMs: 10_000 }).catch(() => {});
    }
    const survivors = procs().filter((p) => read(`/proc/${p}/cmdline`, "file").includes(tag));
    for (const p of survivors) process.kill(Number(p), "SIGKILL");
    record("background process survives", survivors.length > 0);
  });

  test("read another session's /tmp", async () => {
    const other = createSessionTmpDir();
    cleanups.push(() => removeSessionTmpDir(other));
    writeFileSync(join(other, "scratch.txt"), `${MARK}\n`);
    const r = await sh(`cat '${other}/scratch.txt'; cat /tmp/$(basename '${other}')/scratch.txt; ls -a /tmp; ls -a '${other}/..'`);
    record("other session /tmp", r.output.includes(MARK));
  });

  test("/tmp is shared between calls of one session and exported as TMPDIR", async () => {
    await sh('echo carry > "$TMPDIR/x.txt"');
    const r = await sh("cat /tmp/x.txt; echo $TMPDIR $TMP $TEMP");
    expect(r.output).toBe("carry\n/tmp /tmp /tmp\n");
    expect(readFileSync(join(sessionTmp, "x.txt"), "utf8")).toBe("carry\n");
  });

  test("a setuid binary gains no privileges", async () => {
    const suid = join(ws, "sub", "suid-cat");
    copyFileSync("/bin/cat", suid);
    chmodSync(suid, 0o4755);
    const r = await sh("./sub/suid-cat /proc/self/status");
    const capEff = /CapEff:\s*([0-9a-f]+)/.exec(r.output)?.[1];
    const euid = /Uid:\s*\d+\s+(\d+)/.exec(r.output)?.[1];
    const nnp = /NoNewPrivs:\s*(\d)/.exec(r.output)?.[1];
    expect(capEff).toBeDefined();
    const gained = BigInt(`0x${capEff}`) !== 0n || (process.getuid!() !== 0 && euid === "0");
    record("setuid gains privileges", gained);
    expect(nnp).toBe("1");
  });

  test("`..` in --write cannot widen the roots to / or Reasonix state", () => {
    const cli = (args: string[]) =>
      spawnSync(bun, [join(repoRoot, "cli", "main.ts"), "sandbox", "run", ...args], {
        cwd: ws,
        env: { ...process.env, REASONIX_HOME: rxHome, RX_TEST_SECRET_FILE: secretFile, NO_COLOR: "1" },
        encoding: "utf8",
      });
    const marker = join(out, "via-dotdot.txt");
    const up = "../".repeat(20);
    const a = cli(["--write", up, "--", "sh", "-c", `echo x > '${marker}'`]);
    const b = cli(["--write", `sub/../../rxhome/../rxhome/sessions`, "--", "sh", "-c", `echo x > '${marker}'`]);
    const c = cli(["--write", "sub/..", "--", "sh", "-c", `echo x > '${marker}'; echo inside > sub/dotdot.txt`]);
    record("`..` in --write", existsSync(marker) || a.status === 0 || b.status === 0);
    expect(a.stderr).toContain("filesystem root");
    expect(b.stderr).toContain("Reasonix state");
    expect(readFileSync(join(ws, "sub", "dotdot.txt"), "utf8")).toBe("inside\n");
    expect(c.status).toBe(0);
  });

  test("sandbox run via the CLI applies [sandbox] forbid_read from config with ${VAR}", () => {
    const r = spawnSync(bun, [join(repoRoot, "cli", "main.ts"), "sandbox", "run", "--", "sh", "-c", `cat '${secretFile}' '${secretDir}/inner.txt'; echo end`], {
      cwd: ws,
      env: { ...process.env, REASONIX_HOME: rxHome, RX_TEST_SECRET_FILE: secretFile, NO_COLOR: "1" },
      encoding: "utf8",
    });
    record("cli forbid_read from config", (r.stdout + r.stderr).includes(MARK));
    expect(r.stdout).toContain("end");
  });
});
