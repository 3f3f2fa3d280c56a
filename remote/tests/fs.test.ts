// `reasonix remote fs …` over SFTP against a real sshd.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { randomBytes, createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { makeCliEnv, type CliEnv } from "./ssh-cli-helpers.ts";

// Real sshd processes and CLI runs on a shared, busy machine: allow generous time.
setDefaultTimeout(60_000);

const skip = skipWithoutSshd("remote fs tests");
const ODD = "dir with spaces/Ünïcødé файл 文件.txt";

describe.skipIf(skip)("remote fs over SFTP (real sshd)", () => {
  let sshd: SshdHandle;
  let cli: CliEnv;
  const fs = (...args: string[]) => cli.run(["remote", "fs", ...args]);
  const remote = (p: string) => join(sshd.home, p);
  beforeAll(async () => {
    sshd = await startSshd();
    cli = makeCliEnv();
    expect(cli.run(["remote", "add", "box", `${sshd.user}@127.0.0.1:${sshd.port}`, "-i", sshd.clientKey]).code).toBe(0);
    expect(cli.run(["remote", "test", "box", "--accept-new"]).code).toBe(0);
  });
  afterAll(async () => {
    await sshd?.stop();
    cli?.cleanup();
  });

  test("mkdir -p, put, ls, cat, stat with spaces and non-ASCII names; ~ is the remote home", () => {
    let r = fs("mkdir", "-p", "box:~/dir with spaces/sub/deeper");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(statSync(remote("dir with spaces/sub/deeper")).isDirectory()).toBe(true);
    expect(statSync(remote("dir with spaces/sub/deeper")).uid).toBe(sshd.uid);
    expect(fs("mkdir", "box:~/dir with spaces").code).toBe(1); // exists, no -p
    const local = join(cli.dir, "Ünïcødé файл 文件.txt");
    writeFileSync(local, "héllo wörld\n");
    r = fs("put", local, "box:~/dir with spaces/");
    expect(r.code).toBe(0);
    expect(readFileSync(remote(ODD), "utf8")).toBe("héllo wörld\n");
    r = fs("ls", "box:dir with spaces");
    expect(r.stdout).toBe("sub/\nÜnïcødé файл 文件.txt\n");
    writeFileSync(remote("dir with spaces/.hidden"), "");
    expect(fs("ls", "-a", "box:~/dir with spaces").stdout).toBe(".hidden\nsub/\nÜnïcødé файл 文件.txt\n");
    r = fs("ls", "-l", "box:~/dir with spaces");
    expect(r.stdout).toMatch(/^-rw-r--r-- +14 \d{4}-\d\d-\d\d \d\d:\d\d Ünïcødé файл 文件\.txt$/m);
    expect(r.stdout).toMatch(/^drwxr-xr-x +\d+ .* sub\/$/m);
    expect(fs("cat", `box:~/${ODD}`).stdout).toBe("héllo wörld\n");
    const st = JSON.parse(fs("stat", "--json", `box:${ODD}`).stdout);
    expect(st).toMatchObject({ path: remote(ODD), type: "file", size: 14, mode: 0o644, uid: sshd.uid });
    const ls = JSON.parse(fs("ls", "--json", "box:~").stdout);
    expect(ls.map((e: { name: string }) => e.name)).toEqual(["dir with spaces"]);
  });

  test("get writes the file atomically; a failed get leaves nothing behind", () => {
    const out = join(cli.dir, "downloads");
    mkdirSync(out);
    let r = fs("get", `box:~/${ODD}`, out);
    expect(r.code).toBe(0);
    expect(readFileSync(join(out, "Ünïcødé файл 文件.txt"), "utf8")).toBe("héllo wörld\n");
    r = fs("get", "box:~/no such file", join(out, "x"));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("box:~/no such file: no such file or directory");
    // Unreadable remote file: the transfer fails after the local temp file was created.
    sshd.runAsUser(`printf s > "$HOME/secret"; chmod 000 "$HOME/secret"`);
    r = fs("get", "box:secret", join(out, "secret"));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("permission denied");
    expect(readdirSync(out)).toEqual(["Ünïcødé файл 文件.txt"]);
  });

  test("a transfer cut off midway (connection dropped) leaves no local file", async () => {
    const { connectHost } = await import("../hosts/connect.ts");
    const { RemoteFs } = await import("../fs/sftp.ts");
    const { KnownHosts } = await import("../hostkeys/store.ts");
    const { nonInteractive } = await import("../ssh/prompt.ts");
    sshd.runAsUser(`head -c 40000000 /dev/zero > "$HOME/huge.bin"`);
    const prev = { HOME: process.env.HOME, RX: process.env.REASONIX_HOME };
    process.env.REASONIX_HOME = cli.rxHome;
    try {
      const conn = await connectHost("box", {
        knownHosts: new KnownHosts({ systemFiles: [], managedFile: join(cli.rxHome, "remote", "known_hosts") }),
        prompter: nonInteractive,
        agentSocket: null,
        secrets: new Map(),
      });
      const rfs = await RemoteFs.open(conn.client, "box");
      const dest = join(cli.dir, "cut", "huge.bin");
      let cut = false;
      const err = await rfs
        .getFile("~/huge.bin", dest, {
          concurrency: 2,
          chunkSize: 32 * 1024,
          onProgress: (p) => {
            if (!cut && p.transferred > 0) {
              cut = true;
              conn.close();
            }
          },
        })
        .catch((e) => e);
      expect(cut).toBe(true);
      expect(err).toBeInstanceOf(Error);
      expect(readdirSync(join(cli.dir, "cut"))).toEqual([]);
    } finally {
      process.env.REASONIX_HOME = prev.RX;
    }
  });

  test("large binary put/get round trip is byte-exact and put leaves no temp files", () => {
    const big = randomBytes(5 * 1024 * 1024 + 17);
    const src = join(cli.dir, "big.bin");
    writeFileSync(src, big);
    expect(fs("put", src, "box:big.bin").code).toBe(0);
    const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    expect(sha(readFileSync(remote("big.bin")))).toBe(sha(big));
    expect(readdirSync(sshd.home).filter((n) => n.includes(".part"))).toEqual([]);
    const back = join(cli.dir, "big.back");
    expect(fs("get", "box:~/big.bin", back).code).toBe(0);
    expect(sha(readFileSync(back))).toBe(sha(big));
    // Overwriting an existing remote file replaces it (rename over the target).
    writeFileSync(src, "small");
    expect(fs("put", src, "box:big.bin").code).toBe(0);
    expect(readFileSync(remote("big.bin"), "utf8")).toBe("small");
  });

  test("get keeps permission bits but never a remote setuid/setgid bit", () => {
    sshd.runAsUser(`printf '#!/bin/sh\\n' > "$HOME/suid.sh"; chmod 6755 "$HOME/suid.sh"`);
    expect(statSync(remote("suid.sh")).mode & 0o7777).toBe(0o6755);
    const dest = join(cli.dir, "suid.sh");
    expect(fs("get", "box:suid.sh", dest).code).toBe(0);
    expect(statSync(dest).mode & 0o7777).toBe(0o755);
  });

  test("put -r / get -r trees; mv; rm refuses a directory without -r", () => {
    const tree = join(cli.dir, "tree");
    mkdirSync(join(tree, "a b", "ç"), { recursive: true });
    writeFileSync(join(tree, "top.txt"), "1");
    writeFileSync(join(tree, "a b", "ç", "leaf é.txt"), "2");
    expect(fs("put", "box:x", "y").code).toBe(2);
    expect(fs("put", tree, "box:~/up").code).toBe(2); // directory without -r
    let r = fs("put", "-r", tree, "box:~/up");
    expect(r.code).toBe(0);
    expect(readFileSync(remote("up/a b/ç/leaf é.txt"), "utf8")).toBe("2");
    r = fs("mv", "box:~/up", "box:~/moved");
    expect(r.code).toBe(0);
    expect(existsSync(remote("up"))).toBe(false);
    const down = join(cli.dir, "down");
    r = fs("get", "-r", "box:moved", down);
    expect(r.code).toBe(0);
    expect(readFileSync(join(down, "a b", "ç", "leaf é.txt"), "utf8")).toBe("2");
    expect(readFileSync(join(down, "top.txt"), "utf8")).toBe("1");
    r = fs("rm", "box:moved");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is a directory (use -r)");
    expect(fs("rm", "-r", "box:moved").code).toBe(0);
    expect(existsSync(remote("moved"))).toBe(false);
    expect(fs("rm", "box:~").code).toBe(2);
    expect(fs("ls", "nocolon").code).toBe(2);
    expect(fs("ls", "ghost:~").stderr).toContain('no remote host named "ghost"');
  });
});
