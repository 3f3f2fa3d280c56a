import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { findHostBlocks, removeHostBlock } from "../hosts/config-text.ts";
import { parseHostSpec, parseJumpList } from "../hosts/spec.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { makeCliEnv, type CliEnv } from "./ssh-cli-helpers.ts";

// Real sshd processes and CLI runs on a shared, busy machine: allow generous time.
setDefaultTimeout(60_000);

describe("host specs", () => {
  test("[user@]host[:port], IPv6 in brackets, ssh:// and bad ports", () => {
    expect(parseHostSpec("dev@203.0.113.7:2200")).toEqual({ user: "dev", host: "203.0.113.7", port: 2200 });
    expect(parseHostSpec("box")).toEqual({ user: undefined, host: "box", port: undefined });
    expect(parseHostSpec("u@[::1]:22")).toEqual({ user: "u", host: "::1", port: 22 });
    expect(parseHostSpec("ssh://a@b:3")).toEqual({ user: "a", host: "b", port: 3 });
    expect(() => parseHostSpec("a@b:99999")).toThrow(/port/);
    expect(() => parseHostSpec("@b")).toThrow(/empty user/);
    expect(parseJumpList("a@j1:2, j2").map((h) => h.host)).toEqual(["j1", "j2"]);
  });

  test("host blocks: sub-tables stay with their host; comments before the next table stay", () => {
    const text = [
      "# top",
      "[[remote.hosts]]",
      'name = "a"',
      'host = "h"',
      "[[remote.hosts.forwards]]",
      'type = "local"',
      'bind = "127.0.0.1:1"',
      'target = "127.0.0.1:2"',
      "",
      "# about tools",
      "[tools]",
      "bash_timeout_seconds = 3",
      "[[remote.hosts]]",
      'name = "b"',
      'host = "h2"',
    ].join("\n");
    const blocks = findHostBlocks(text);
    expect(blocks.map((b) => [b.name, b.start, b.end])).toEqual([["a", 1, 8], ["b", 12, 15]]);
    const out = removeHostBlock(text, "a")!;
    expect(out).toContain("# top\n# about tools\n[tools]");
    expect(out).not.toContain("forwards");
  });
});

const skip = skipWithoutSshd("remote hosts CLI tests");

describe.skipIf(skip)("remote add/list/remove/import/test (real sshd)", () => {
  let sshd: SshdHandle;
  let cli: CliEnv;
  beforeAll(async () => {
    sshd = await startSshd();
    cli = makeCliEnv();
  });
  afterAll(async () => {
    await sshd?.stop();
    cli?.cleanup();
  });

  test("add / list / remove keep comments and other tables; duplicates and bad input are refused", () => {
    mkdirSync(cli.rxHome, { recursive: true });
    const cfg = join(cli.rxHome, "config.toml");
    writeFileSync(cfg, '# my settings\ndefault_model = "deepseek"  # keep me\n\n[remote]\nkeepalive_interval_ms = 4000\n\n[tools]\nbash_timeout_seconds = 7\n');
    let r = cli.run(["remote", "add", "box", `${sshd.user}@127.0.0.1:${sshd.port}`, "--identity", sshd.clientKey, "--workspace", "~/w", "--serve-install", "never"]);
    expect(r.stderr).toContain("added box");
    expect(r.code).toBe(0);
    r = cli.run(["remote", "add", "box", "x@y"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("already exists");
    r = cli.run(["remote", "add", "bad", "x@y:0"]);
    expect(r.code).toBe(2);
    r = cli.run(["remote", "add", "other", "h.example:2022", "--jump", "box"]);
    expect(r.code).toBe(0);
    r = cli.run(["remote", "list", "--json"]);
    const hosts = JSON.parse(r.stdout);
    expect(hosts.map((h: { name: string }) => h.name)).toEqual(["box", "other"]);
    expect(hosts[0]).toMatchObject({ host: "127.0.0.1", port: sshd.port, user: sshd.user, identity_file: sshd.clientKey, workspace: "~/w", serve_install: "never" });
    expect(cli.run(["remote", "list"]).stdout).toContain(`other  h.example:2022`);
    r = cli.run(["remote", "remove", "other"]);
    expect(r.code).toBe(0);
    const text = readFileSync(cfg, "utf8");
    expect(text).toStartWith('# my settings\ndefault_model = "deepseek"  # keep me\n\n[remote]\nkeepalive_interval_ms = 4000\n\n[tools]\nbash_timeout_seconds = 7\n');
    expect(text).not.toContain("other");
    expect(cli.run(["remote", "remove", "other"]).code).toBe(1);
  });

  test("a project reasonix.toml cannot add hosts", () => {
    writeFileSync(join(cli.dir, "reasonix.toml"), '[[remote.hosts]]\nname = "evil"\nhost = "203.0.113.9"\n');
    const r = cli.run(["remote", "list", "--json"]);
    expect(JSON.parse(r.stdout).map((h: { name: string }) => h.name)).toEqual(["box"]);
  });

  test("remote test: non-TTY refuses an unknown key, --accept-new records it, then reports the platform", () => {
    let r = cli.run(["remote", "test", "box"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not known");
    expect(r.stderr).toContain("--accept-new");
    r = cli.run(["remote", "test", "box", "--accept-new", "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ os: "Linux", user: sshd.user, home: sshd.home, routes: { upload: true } });
    expect(report.platform).toMatch(/^linux-(x64|arm64)$/);
    expect(readFileSync(join(cli.rxHome, "remote", "known_hosts"), "utf8")).toContain(`[127.0.0.1]:${sshd.port} ssh-ed25519 `);
    r = cli.run(["remote", "test", "box"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("install    upload: yes");
  });

  test("import from an ssh config with Include and Host patterns; connect resolves through ssh -G", () => {
    const sshDir = join(cli.dir, "sshcfg");
    mkdirSync(join(sshDir, "conf.d"), { recursive: true });
    writeFileSync(
      join(sshDir, "config"),
      [
        `Include ${join(sshDir, "conf.d")}/*.conf`,
        "Host *.internal !bastion.internal",
        `  User ${sshd.user}`,
        "Host devbox alias2",
        "Match originalhost devbox",
        `  User ${sshd.user}`,
        "  HostName 127.0.0.1",
        `  Port ${sshd.port}`,
        "Host *",
        "  IdentitiesOnly yes",
        `  IdentityFile ${join(sshDir, "missing_key")}`,
        `  IdentityFile ${sshd.clientKey}`,
        "",
      ].join("\n"),
    );
    writeFileSync(join(sshDir, "conf.d", "10-lab.conf"), `Host lab\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.user}\n`);
    const env = { REASONIX_SSH_CONFIG: join(sshDir, "config") };
    let r = cli.run(["remote", "import"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("lab, devbox, alias2");
    r = cli.run(["remote", "import", "--all"], { env });
    expect(r.code).toBe(0);
    const hosts = JSON.parse(cli.run(["remote", "list", "--json"]).stdout);
    expect(hosts.filter((h: { use_ssh_config?: boolean }) => h.use_ssh_config).map((h: { name: string }) => h.name)).toEqual(["lab", "devbox", "alias2"]);
    expect(hosts.find((h: { name: string }) => h.name === "lab")).toEqual({ name: "lab", host: "lab", use_ssh_config: true });
    // Re-import is a no-op for existing names.
    expect(cli.run(["remote", "import", "lab"], { env }).stderr).toContain("already configured");
    for (const alias of ["lab", "devbox"]) {
      r = cli.run(["remote", "test", alias, "--json"], { env });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).user).toBe(sshd.user);
    }
  });
});
