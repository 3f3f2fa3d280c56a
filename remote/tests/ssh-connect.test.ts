import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { KnownHosts } from "../hostkeys/store.ts";
import { connectSsh, type ConnectOptions } from "../ssh/connect.ts";
import { AuthFailed, HostKeyMismatch, HostKeyRevoked, HostUnknown, isTerminalSshError } from "../ssh/errors.ts";
import { runScript } from "../ssh/exec.ts";
import { nonInteractive } from "../ssh/prompt.ts";
import type { SshTarget } from "../ssh/target.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";

// Real sshd processes and CLI runs on a shared, busy machine: allow generous time.
setDefaultTimeout(60_000);

const skip = skipWithoutSshd("ssh connect tests");

const target = (s: SshdHandle, extra: Partial<SshTarget> = {}): SshTarget => ({
  label: `${s.user}@${s.host}:${s.port}`,
  host: s.host,
  port: s.port,
  user: s.user,
  identityFiles: [s.clientKey],
  ...extra,
});

describe.skipIf(skip)("connectSsh against a real sshd", () => {
  let sshd: SshdHandle;
  let dir: string;
  let managed: string;
  const warnings: string[] = [];
  const opts = (extra: Partial<ConnectOptions> = {}): ConnectOptions => ({
    knownHosts: new KnownHosts({ systemFiles: [join(dir, "openssh_known_hosts")], managedFile: managed }),
    prompter: nonInteractive,
    secrets: new Map<string, string>(),
    agentSocket: null,
    warn: (m) => warnings.push(m),
    ...extra,
  });

  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), "rx-ssh-connect-"));
    managed = join(dir, "reasonix", "remote", "known_hosts");
  });
  afterAll(async () => {
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("unknown host key is refused without a TTY, and nothing is recorded", async () => {
    const err = await connectSsh(target(sshd), opts()).catch((e) => e);
    expect(err).toBeInstanceOf(HostUnknown);
    expect(err.message).toContain(`[127.0.0.1]:${sshd.port}`);
    expect(err.message).toMatch(/SHA256:[A-Za-z0-9+/]{43}/);
    expect(isTerminalSshError(err)).toBe(true);
    expect(() => readFileSync(managed)).toThrow();
  });

  test("--accept-new records the key (0600 in 0700 dir); next connect is silent; runScript works", async () => {
    const conn = await connectSsh(target(sshd), opts({ acceptNew: true }));
    expect(conn.hostKeys[0]!.outcome).toBe("accepted");
    const res = await runScript(conn.client, 'echo "$1-$2"; id -un; printf %s "$HOME"', { args: ["a b", "c'd"] });
    conn.close();
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`a b-c'd\n${sshd.user}\n${sshd.home}`);
    const text = readFileSync(managed, "utf8");
    expect(text).toStartWith(`[127.0.0.1]:${sshd.port} ssh-ed25519 `);
    expect(execFileSync("stat", ["-c", "%a", managed]).toString().trim()).toBe("600");
    expect(execFileSync("stat", ["-c", "%a", join(dir, "reasonix", "remote")]).toString().trim()).toBe("700");
    // The recorded fingerprint is the one ssh-keygen prints for the server key.
    const fp = execFileSync("ssh-keygen", ["-lf", `${sshd.hostKeys[0]!.path}.pub`]).toString().split(" ")[1];
    expect(conn.hostKeys[0]!.fingerprint).toBe(fp!);
    const again = await connectSsh(target(sshd), opts());
    expect(again.hostKeys[0]!.outcome).toBe("known");
    expect(again.hostKeys[0]!.recordedAt).toBe(`${managed}:1`);
    again.close();
  });

  test("ssh-agent: a key held only by a real ssh-agent authenticates", async () => {
    const sock = join(dir, "agent.sock");
    const out = execFileSync("ssh-agent", ["-s", "-a", sock]).toString();
    const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(out)?.[1]);
    try {
      execFileSync("ssh-add", ["-q", sshd.clientKey], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: "ignore" });
      const conn = await connectSsh(target(sshd, { identityFiles: [] }), opts({ agentSocket: sock }));
      expect(conn.authMethod).toBe("agent");
      const res = await runScript(conn.client, "id -un");
      conn.close();
      expect(res.stdout.trim()).toBe(sshd.user);
      // Without the agent (and no key files) the same target has nothing to offer.
      const err = await connectSsh(target(sshd, { identityFiles: [] }), opts()).catch((e) => e);
      expect(err).toBeInstanceOf(AuthFailed);
    } finally {
      if (pid) process.kill(pid, "SIGTERM");
    }
  });

  test("wrong key is an AuthFailed that names what was tried", async () => {
    const other = join(dir, "other_key");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", other]);
    const err = await connectSsh(target(sshd, { identityFiles: [other] }), opts()).catch((e) => e);
    expect(err).toBeInstanceOf(AuthFailed);
    expect(err.message).toContain("publickey");
    expect(isTerminalSshError(err)).toBe(true);
  });

  test("after the host key rotates, the error names the file:line of the recorded key", async () => {
    await sshd.rotateHostKeys();
    const err = await connectSsh(target(sshd), opts({ acceptNew: true })).catch((e) => e);
    expect(err).toBeInstanceOf(HostKeyMismatch);
    expect(err.message).toContain(`${managed}:1`);
    expect(isTerminalSshError(err)).toBe(true);
    // --accept-new never overrides a mismatch: the file is unchanged.
    expect(readFileSync(managed, "utf8").trim().split("\n")).toHaveLength(1);
  });
});
