// Authentication routes, ProxyJump and non-POSIX login shells, through the CLI
// against real sshd instances.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { makeCliEnv, type CliEnv } from "./ssh-cli-helpers.ts";

// Real sshd processes and CLI runs on a shared, busy machine: allow generous time.
setDefaultTimeout(60_000);

const skip = skipWithoutSshd("ssh auth / jump / login shell tests");
const PASSPHRASE = "correct horse ✓ battery";
// Login-shell cases skip (counted, with the reason) when their shell is missing; they never pass on /bin/sh.
const zsh = ["/usr/bin/zsh", "/bin/zsh"].find((p) => existsSync(p));
const tcsh = ["/usr/bin/tcsh", "/bin/tcsh"].find((p) => existsSync(p));
if (!skip && !zsh) console.warn("SKIPPED zsh login shell test: zsh is not installed (.ci/run installs it)");
if (!skip && !tcsh) console.warn("SKIPPED tcsh login shell test: tcsh is not installed (.ci/run installs it)");
const PASSWORD = "pw with spaces & ünïcode";

describe.skipIf(skip)("auth, ProxyJump and login shells (real sshd)", () => {
  let a: SshdHandle; // encrypted client key, password auth, zsh login shell
  let jump: SshdHandle; // same user, used as a bastion
  let c: SshdHandle; // tcsh login shell
  let cli: CliEnv;
  beforeAll(async () => {
    a = await startSshd({ clientKeyPassphrase: PASSPHRASE, password: PASSWORD, loginShell: zsh });
    jump = await startSshd({ shareUserWith: a });
    if (tcsh) c = await startSshd({ loginShell: tcsh });
    cli = makeCliEnv();
    mkdirSync(cli.rxHome, { recursive: true });
    writeFileSync(join(cli.rxHome, ".env"), `KEY_PASS="${PASSPHRASE}"\nLOGIN_PW='${PASSWORD}'\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await c?.stop();
    await jump?.stop();
    await a?.stop();
    cli?.cleanup();
  });

  const testJson = (name: string, extra: string[] = []) => {
    const r = cli.run(["remote", "test", name, "--json", ...extra]);
    return { ...r, json: r.code === 0 ? JSON.parse(r.stdout) : null };
  };

  test("encrypted key: passphrase from passphrase_env in $REASONIX_HOME/.env", () => {
    expect(cli.run(["remote", "add", "enc", `${a.user}@127.0.0.1:${a.port}`, "-i", a.clientKey, "--passphrase-env", "KEY_PASS"]).code).toBe(0);
    const r = testJson("enc", ["--accept-new"]);
    expect(r.stderr).not.toContain("error");
    expect(r.json.auth).toContain("publickey");
    expect(r.json.user).toBe(a.user);
  });

  test("encrypted key without a passphrase (no TTY) fails as an authentication error that says why", () => {
    expect(cli.run(["remote", "add", "enc-nopass", `${a.user}@127.0.0.1:${a.port}`, "-i", a.clientKey]).code).toBe(0);
    const r = cli.run(["remote", "test", "enc-nopass"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`authentication to enc-nopass failed`);
    expect(r.stderr).toContain(`${a.clientKey} is encrypted and no passphrase is available`);
  });

  test("password auth from password_env; a wrong password is a terminal auth failure", () => {
    expect(cli.run(["remote", "add", "pw", `${a.user}@127.0.0.1:${a.port}`, "--password-env", "LOGIN_PW"]).code).toBe(0);
    const r = testJson("pw");
    expect(r.json?.auth).toBe("password");
    writeFileSync(join(cli.rxHome, ".env"), `KEY_PASS="${PASSPHRASE}"\nLOGIN_PW=wrong\n`, { mode: 0o600 });
    const bad = cli.run(["remote", "test", "pw"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("authentication to pw failed (tried: password)");
    writeFileSync(join(cli.rxHome, ".env"), `KEY_PASS="${PASSPHRASE}"\nLOGIN_PW='${PASSWORD}'\n`, { mode: 0o600 });
  });

  test.skipIf(!zsh)("zsh login shell: scripts still run under sh", () => {
    const r = testJson("enc");
    expect(r.json.loginShell).toBe(zsh!);
    expect(r.json.home).toBe(a.home);
  });

  test("ProxyJump through a second sshd (configured host name as the hop); each hop's key is verified", () => {
    expect(cli.run(["remote", "add", "bastion", `${jump.user}@127.0.0.1:${jump.port}`, "-i", a.clientKey, "--passphrase-env", "KEY_PASS"]).code).toBe(0);
    expect(cli.run(["remote", "add", "inner", `${a.user}@127.0.0.1:${a.port}`, "-i", a.clientKey, "--passphrase-env", "KEY_PASS", "--jump", "bastion"]).code).toBe(0);
    // The bastion's key is new: without --accept-new the first hop is refused.
    const r = cli.run(["remote", "test", "inner"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`[127.0.0.1]:${jump.port}`);
    const accepted = testJson("inner", ["--accept-new"]);
    expect(accepted.code).toBe(0);
    expect(accepted.json.jumps).toEqual([`${jump.user}@127.0.0.1:${jump.port}`]);
  });

  test("ProxyJump given as USER@HOST:PORT really goes through the bastion", async () => {
    expect(cli.run(["remote", "add", "inner2", `${a.user}@127.0.0.1:${a.port}`, "-i", a.clientKey, "--passphrase-env", "KEY_PASS", "--jump", `${jump.user}@127.0.0.1:${jump.port}`]).code).toBe(0);
    const r = testJson("inner2");
    expect(r.stderr).toBe("");
    expect(r.json.jumps).toHaveLength(1);
    // With the bastion gone the same host is unreachable, while a direct entry still works.
    await jump.stop();
    const down = cli.run(["remote", "test", "inner2"]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`cannot connect to ${jump.user}@127.0.0.1:${jump.port}`);
    expect(testJson("enc").code).toBe(0);
  });

  test.skipIf(!tcsh)("tcsh login shell: the probe script is not parsed by tcsh", () => {
    expect(cli.run(["remote", "add", "tc", `${c.user}@127.0.0.1:${c.port}`, "-i", c.clientKey]).code).toBe(0);
    const r = testJson("tc", ["--accept-new"]);
    expect(r.stderr).not.toContain("error");
    expect(r.json.loginShell).toBe(tcsh!);
    expect(r.json.user).toBe(c.user);
    expect(r.json.os).toBe("Linux");
  });
});
