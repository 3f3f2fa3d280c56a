// `remote fs put/get` never lie (issue 18, item 1): a transfer that did not
// complete exits non-zero with the reason, on a dropped link, a killed session,
// a full disk or a permission error; no `.part` file survives any exit path
// (signals included, with a cleanup on the next connect as the fallback); an
// overwrite keeps the target's mode unless --preserve. Real sshd; the link is a
// pacing relay on loopback so a small file takes long enough to interrupt.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startRelay, type Relay } from "../testing/relay.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { makeCliEnv, type CliEnv } from "./ssh-cli-helpers.ts";

setDefaultTimeout(60_000);
const skip = skipWithoutSshd("remote fs honesty tests");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll (bounded) until `pred` holds; fail with `what` otherwise. */
async function until(pred: () => boolean, what: string, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (pred()) return;
  throw new Error(`timed out waiting for ${what}`);
}

const parts = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".part")) : []);
const partSize = (dir: string) => parts(dir).reduce((n, p) => n + statSync(join(dir, p)).size, 0);

describe.skipIf(skip)("remote fs transfers never lie (real sshd, pacing relay)", () => {
  let sshd: SshdHandle;
  let relay: Relay;
  let cli: CliEnv;
  const payload = randomBytes(3 * 1024 * 1024);
  let src: string;

  beforeAll(async () => {
    sshd = await startSshd();
    // 1 MB/s: the 3 MiB payload takes ~3 s, long enough to cut it midway.
    relay = await startRelay({ targetPort: sshd.port, rateBytesPerSec: 1_000_000 });
    cli = makeCliEnv("rx-fs-honest-");
    mkdirSync(cli.rxHome, { recursive: true, mode: 0o700 });
    writeFileSync(join(cli.rxHome, "config.toml"), "[remote]\nkeepalive_interval_ms = 1000\nkeepalive_count_max = 2\n", { mode: 0o600 });
    expect((await cli.start(["remote", "add", "box", `${sshd.user}@127.0.0.1:${relay.port}`, "-i", sshd.clientKey]).exited).code).toBe(0);
    expect((await cli.start(["remote", "test", "box", "--accept-new"]).exited).code).toBe(0);
    // The same sshd without the relay, for the tests where the link speed does not matter.
    expect((await cli.start(["remote", "add", "fast", `${sshd.user}@127.0.0.1:${sshd.port}`, "-i", sshd.clientKey]).exited).code).toBe(0);
    expect((await cli.start(["remote", "test", "fast", "--accept-new"]).exited).code).toBe(0);
    src = join(cli.dir, "payload.bin");
    writeFileSync(src, payload);
    sshd.runAsUser(`mkdir -p "$HOME/in"`);
  });
  afterAll(async () => {
    await relay?.close();
    await sshd?.stop();
    cli?.cleanup();
  });

  const killSessions = () => {
    let pids: string[] = [];
    try {
      pids = execFileSync("pgrep", ["-u", sshd.user]).toString().split(/\s+/).filter(Boolean);
    } catch {}
    for (const p of pids) {
      try {
        process.kill(Number(p), "SIGKILL");
      } catch {}
    }
  };

  test("put: sshd killing the session midway exits 1 with the reason; the next connect removes the .part", async () => {
    const inbox = join(sshd.home, "in");
    const run = cli.start(["remote", "fs", "put", src, "box:~/in/a.bin"]);
    await until(() => partSize(inbox) > 100_000, "a partial upload");
    killSessions();
    const r = await run.exited;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/connection (lost|closed)|session closed/i);
    expect(existsSync(join(inbox, "a.bin"))).toBe(false);
    // The session died with the temp file on disk; the next connection to the host cleans it.
    expect((await cli.start(["remote", "fs", "ls", "box:~"]).exited).code).toBe(0);
    expect(parts(inbox)).toEqual([]);
  });

  test("put: a link that goes silent is detected by keepalive, exits 1; the .part is removed on the next connect", async () => {
    const inbox = join(sshd.home, "in");
    const run = cli.start(["remote", "fs", "put", src, "box:~/in/b.bin"]);
    await until(() => partSize(inbox) > 100_000, "a partial upload");
    relay.blackhole();
    const r = await run.exited;
    relay.restore();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/connection lost|keepalive|timed out/i);
    expect(existsSync(join(inbox, "b.bin"))).toBe(false);
    expect((await cli.start(["remote", "fs", "stat", "box:~/in"]).exited).code).toBe(0);
    expect(parts(inbox)).toEqual([]);
  });

  test("put over a saturated slow link completes: replies from the server count as signs of life, as in OpenSSH", async () => {
    // 400 kB/s with the SFTP window (~2 MB) full: a keepalive ping waits ~5 s behind the
    // data, longer than the 1 s x 2 allowed. The server answers every write meanwhile, so
    // the link is alive; only a link that says nothing may be declared dead.
    const slow = await startRelay({ targetPort: sshd.port, rateBytesPerSec: 400_000 });
    try {
      expect((await cli.start(["remote", "add", "slow", `${sshd.user}@127.0.0.1:${slow.port}`, "-i", sshd.clientKey]).exited).code).toBe(0);
      expect((await cli.start(["remote", "test", "slow", "--accept-new"]).exited).code).toBe(0);
      const two = join(cli.dir, "two.bin");
      writeFileSync(two, randomBytes(2 * 1024 * 1024));
      const r = await cli.start(["remote", "fs", "put", two, "slow:~/in/two.bin"]).exited;
      expect(r.stderr).not.toMatch(/keepalive|connection lost/i);
      expect(r.code).toBe(0);
      expect(statSync(join(sshd.home, "in", "two.bin")).size).toBe(2 * 1024 * 1024);
      expect(parts(join(sshd.home, "in"))).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  test("put: SIGINT and SIGTERM stop the upload, remove the remote .part at once and exit 130/143", async () => {
    const inbox = join(sshd.home, "in");
    for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
      const run = cli.start(["remote", "fs", "put", src, "box:~/in/c.bin"]);
      await until(() => partSize(inbox) > 100_000, "a partial upload");
      run.child.kill(sig);
      const r = await run.exited;
      expect(r.code).toBe(code);
      expect(r.stderr).toMatch(/interrupted|terminated/i);
      expect(parts(inbox)).toEqual([]);
      expect(existsSync(join(inbox, "c.bin"))).toBe(false);
    }
  });

  test("get: SIGINT removes the local .part and exits 130; a dropped session exits 1 with no .part", async () => {
    writeFileSync(join(sshd.home, "big.bin"), payload);
    const out = join(cli.dir, "dl");
    mkdirSync(out);
    let run = cli.start(["remote", "fs", "get", "box:~/big.bin", out]);
    await until(() => partSize(out) > 100_000, "a partial download");
    run.child.kill("SIGINT");
    let r = await run.exited;
    expect(r.code).toBe(130);
    expect(readdirSync(out)).toEqual([]);
    run = cli.start(["remote", "fs", "get", "box:~/big.bin", out]);
    await until(() => partSize(out) > 100_000, "a partial download");
    killSessions();
    r = await run.exited;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/connection (lost|closed)|session closed/i);
    expect(readdirSync(out)).toEqual([]);
  });

  test("a download killed outright leaves a .part that a clean-up from another directory removes (issue 34 item 5)", async () => {
    writeFileSync(join(sshd.home, "big5.bin"), payload);
    const a = join(cli.dir, "cwd-a");
    const b = join(cli.dir, "cwd-b");
    mkdirSync(a);
    mkdirSync(b);
    const run = cli.start(["remote", "fs", "get", "box:~/big5.bin", "rel.bin"], { cwd: a });
    await until(() => partSize(a) > 100_000, "a partial download");
    run.child.kill("SIGKILL"); // no chance to clean up: only the journal knows
    await run.exited;
    expect(parts(a)).toHaveLength(1);
    const journal = join(cli.rxHome, "remote", "parts", "box");
    const records = readdirSync(journal).map((n) => JSON.parse(readFileSync(join(journal, n), "utf8")));
    expect(records).toEqual([{ pid: run.child.pid, host: "box", side: "local", path: join(a, parts(a)[0]!) }]);
    expect((await cli.start(["remote", "fs", "ls", "box:~"], { cwd: b }).exited).code).toBe(0);
    expect(parts(a)).toEqual([]);
    expect(readdirSync(journal)).toEqual([]);
  });

  test("put into a full filesystem names the real reason with real numbers; into a read-only directory says permission denied", async () => {
    const small = join(sshd.dir, "small-fs");
    mkdirSync(small);
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=1m,uid=${sshd.uid},mode=0755`, "tmpfs", small]);
    try {
      const r = await cli.start(["remote", "fs", "put", src, `fast:${small}/full.bin`]).exited;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/no space left on device \(\d+ bytes free on the remote filesystem, 3\.0 MiB needed\)/);
      expect(r.stderr).not.toContain("NaN");
      expect(readdirSync(small)).toEqual([]);
    } finally {
      execFileSync("umount", ["-l", small]);
    }
    sshd.runAsUser(`mkdir -p "$HOME/ro" && chmod 555 "$HOME/ro"`);
    const r = await cli.start(["remote", "fs", "put", src, "fast:~/ro/x.bin"]).exited;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("permission denied");
  });

  test("put onto a read-only mount says so (issue 34 item 4), not 'no space left'", async () => {
    const ro = join(sshd.dir, "ro-fs");
    mkdirSync(ro);
    execFileSync("mount", ["-t", "tmpfs", "-o", `ro,size=8m,uid=${sshd.uid},mode=0755`, "tmpfs", ro]);
    try {
      const r = await cli.start(["remote", "fs", "put", src, `fast:${ro}/x.bin`]).exited;
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${ro}/x.bin: read-only file system`);
      expect(r.stderr).not.toMatch(/no space|NaN/);
    } finally {
      execFileSync("umount", ["-l", ro]);
    }
  });

  test("overwriting keeps the target's mode; --preserve takes the source's", async () => {
    const tiny = join(cli.dir, "tiny.txt");
    writeFileSync(tiny, "new\n");
    chmodSync(tiny, 0o644);
    sshd.runAsUser(`printf old > "$HOME/secret.txt"; chmod 600 "$HOME/secret.txt"`);
    expect((await cli.start(["remote", "fs", "put", tiny, "fast:~/secret.txt"]).exited).code).toBe(0);
    expect(readFileSync(join(sshd.home, "secret.txt"), "utf8")).toBe("new\n");
    expect(statSync(join(sshd.home, "secret.txt")).mode & 0o7777).toBe(0o600);
    expect((await cli.start(["remote", "fs", "put", "--preserve", tiny, "fast:~/secret.txt"]).exited).code).toBe(0);
    expect(statSync(join(sshd.home, "secret.txt")).mode & 0o7777).toBe(0o644);
    // A new file gets the source's permission bits, as before.
    chmodSync(tiny, 0o640);
    expect((await cli.start(["remote", "fs", "put", tiny, "fast:~/fresh.txt"]).exited).code).toBe(0);
    expect(statSync(join(sshd.home, "fresh.txt")).mode & 0o7777).toBe(0o640);
  });

  test("get over an existing local file keeps its mode (issue 34 item 3); --preserve takes the source's", async () => {
    sshd.runAsUser(`printf fresh > "$HOME/pub.txt"; chmod 644 "$HOME/pub.txt"`);
    const local = join(cli.dir, "kept.txt");
    writeFileSync(local, "old");
    chmodSync(local, 0o600);
    expect((await cli.start(["remote", "fs", "get", "fast:~/pub.txt", local]).exited).code).toBe(0);
    expect(readFileSync(local, "utf8")).toBe("fresh");
    expect(statSync(local).mode & 0o7777).toBe(0o600);
    // Into a directory holding a file of that name: the same rule.
    const dir = join(cli.dir, "into");
    mkdirSync(dir);
    writeFileSync(join(dir, "pub.txt"), "old");
    chmodSync(join(dir, "pub.txt"), 0o640);
    expect((await cli.start(["remote", "fs", "get", "fast:~/pub.txt", dir]).exited).code).toBe(0);
    expect(statSync(join(dir, "pub.txt")).mode & 0o7777).toBe(0o640);
    expect((await cli.start(["remote", "fs", "get", "--preserve", "fast:~/pub.txt", local]).exited).code).toBe(0);
    expect(statSync(local).mode & 0o7777).toBe(0o644);
    // A setuid bit on the file being replaced is not kept either.
    chmodSync(local, 0o4700);
    expect((await cli.start(["remote", "fs", "get", "fast:~/pub.txt", local]).exited).code).toBe(0);
    expect(statSync(local).mode & 0o7777).toBe(0o700);
  });
});
