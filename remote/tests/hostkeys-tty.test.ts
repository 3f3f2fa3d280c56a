// Prompts on a real terminal: `script` gives the CLI a pty for stdin and stderr.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { makeCliEnv, type CliEnv } from "./ssh-cli-helpers.ts";

// Real sshd processes and CLI runs on a shared, busy machine: allow generous time.
setDefaultTimeout(60_000);

const noScript = !existsSync("/usr/bin/script");
if (noScript) console.warn("SKIPPED terminal prompt tests: util-linux `script` not installed");
const skip = skipWithoutSshd("terminal prompt tests") || noScript;
const PASSPHRASE = "tty secret";

describe.skipIf(skip)("host key and passphrase prompts on a TTY", () => {
  let sshd: SshdHandle;
  let cli: CliEnv;
  const onTty = (args: string[], input: string) => {
    const cmd = [process.execPath, join(import.meta.dir, "../../cli/main.ts"), ...args].map((a) => `'${a}'`).join(" ");
    const r = spawnSync("script", ["-qec", cmd, "/dev/null"], { env: cli.env, cwd: cli.dir, input, timeout: 60_000 });
    return { code: r.status, out: r.stdout.toString() };
  };
  beforeAll(async () => {
    sshd = await startSshd({ clientKeyPassphrase: PASSPHRASE });
    cli = makeCliEnv();
    expect(cli.run(["remote", "add", "box", `${sshd.user}@127.0.0.1:${sshd.port}`, "-i", sshd.clientKey]).code).toBe(0);
  });
  afterAll(async () => {
    await sshd?.stop();
    cli?.cleanup();
  });

  test("answering N refuses the unknown key and records nothing", () => {
    const r = onTty(["remote", "test", "box"], "n\n");
    expect(r.out).toContain(`The authenticity of host '[127.0.0.1]:${sshd.port}' can't be established.`);
    expect(r.out).toContain("[y/N]");
    expect(r.out).toContain("not accepted");
    expect(r.code).toBe(1);
    expect(existsSync(join(cli.rxHome, "remote", "known_hosts"))).toBe(false);
  });

  test("answering y records the key; then the key passphrase is asked on the terminal", () => {
    const r = onTty(["remote", "test", "box"], `y\n${PASSPHRASE}\n`);
    const fp = execFileSync("ssh-keygen", ["-lf", `${sshd.hostKeys[0]!.path}.pub`]).toString().split(" ")[1]!;
    expect(r.out).toContain(`ED25519 key fingerprint is ${fp}`);
    expect(r.out).toContain(`Enter passphrase for key '${sshd.clientKey}':`);
    expect(r.out).toContain("box: connected to");
    expect(r.code).toBe(0);
    expect(readFileSync(join(cli.rxHome, "remote", "known_hosts"), "utf8")).toContain(`[127.0.0.1]:${sshd.port} ssh-ed25519 `);
  });

  test("a changed key is an error, not a question, even on a terminal", async () => {
    await sshd.rotateHostKeys();
    const r = onTty(["remote", "test", "box"], "y\ny\n");
    expect(r.out).not.toContain("[y/N]");
    expect(r.out).toContain(`does not match the key recorded at ${join(cli.rxHome, "remote", "known_hosts")}:1`);
    expect(r.code).toBe(1);
  });
});
