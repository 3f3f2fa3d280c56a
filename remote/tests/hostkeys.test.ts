import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeKey, sha256Fingerprint } from "../hostkeys/fingerprint.ts";
import { hostFieldMatches, parseKnownHosts } from "../hostkeys/known-hosts.ts";
import { KnownHosts } from "../hostkeys/store.ts";
import { connectSsh, type ConnectOptions } from "../ssh/connect.ts";
import { HostKeyMismatch, HostKeyRevoked, HostUnknown } from "../ssh/errors.ts";
import { nonInteractive } from "../ssh/prompt.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";

// Real sshd processes and CLI runs on a shared, busy machine: allow generous time.
setDefaultTimeout(60_000);

const dir = mkdtempSync(join(tmpdir(), "rx-hostkeys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function genKey(type: "ed25519" | "rsa" | "ecdsa"): { path: string; b64: string; blob: Buffer; line: string } {
  const path = join(dir, `k_${type}_${Math.random().toString(36).slice(2)}`);
  execFileSync("ssh-keygen", ["-q", "-t", type, "-N", "", "-C", "", "-f", path]);
  const line = readFileSync(`${path}.pub`, "utf8").trim();
  const b64 = line.split(" ")[1]!;
  return { path, b64, blob: Buffer.from(b64, "base64"), line };
}

describe("known_hosts format", () => {
  test("patterns: [host]:port, comma lists, wildcards, negation", () => {
    expect(hostFieldMatches("example.com,10.0.0.1", "10.0.0.1", 22)).toBe(true);
    expect(hostFieldMatches("example.com", "10.0.0.1", 22)).toBe(false);
    expect(hostFieldMatches("[127.0.0.1]:2222", "127.0.0.1", 2222)).toBe(true);
    expect(hostFieldMatches("127.0.0.1", "127.0.0.1", 2222)).toBe(false);
    expect(hostFieldMatches("*.corp,!bad.corp", "good.corp", 22)).toBe(true);
    expect(hostFieldMatches("*.corp,!bad.corp", "bad.corp", 22)).toBe(false);
    expect(hostFieldMatches("host?", "host1", 22)).toBe(true);
    expect(hostFieldMatches("host?", "host12", 22)).toBe(false);
    expect(hostFieldMatches("[10.0.0.*]:220?", "10.0.0.5", 2201)).toBe(true);
    expect(hostFieldMatches("EXAMPLE.com", "example.COM", 22)).toBe(true);
  });

  test("comments, blank lines, markers; malformed lines are warnings naming file:line", () => {
    const k = genKey("ed25519");
    const text = [
      "# comment",
      "",
      `h1 ${k.line.split(" ").slice(0, 2).join(" ")} a comment`,
      "garbage",
      "h2 ssh-ed25519 !!!notbase64",
      `@revoked * ${k.line}`,
      `@cert-authority *.corp ${k.line}`,
      `@bogus h3 ${k.line}`,
      `h4 ssh-rsa ${k.b64}`,
      "h5 1024 35 12345",
    ].join("\n");
    const { entries, warnings } = parseKnownHosts(text, "/x/known_hosts");
    expect(entries.map((e) => [e.line, e.marker, e.hosts])).toEqual([
      [3, null, "h1"],
      [6, "revoked", "*"],
      [7, "cert-authority", "*.corp"],
    ]);
    expect(warnings).toEqual([
      "/x/known_hosts:4: malformed known_hosts line; ignored",
      "/x/known_hosts:5: malformed known_hosts line; ignored",
      "/x/known_hosts:8: unknown marker @bogus; line ignored",
      "/x/known_hosts:9: key type ssh-rsa does not match its key data; line ignored",
      "/x/known_hosts:10: malformed known_hosts line; ignored",
    ]);
  });

  test("fingerprints and bit sizes match ssh-keygen -lf", () => {
    for (const type of ["ed25519", "rsa", "ecdsa"] as const) {
      const k = genKey(type);
      const want = execFileSync("ssh-keygen", ["-lf", `${k.path}.pub`]).toString().trim();
      expect(describeKey(k.blob)).toBe(want);
      expect(sha256Fingerprint(k.blob)).toBe(want.split(" ")[1]!);
    }
  });

  test("hashed entries written by ssh-keygen -H match their host only", () => {
    const k = genKey("ed25519");
    const file = join(dir, "hashed_known_hosts");
    writeFileSync(file, `[127.0.0.1]:2022 ${k.line}\nother.example ${k.line}\n`);
    execFileSync("ssh-keygen", ["-H", "-f", file], { stdio: "ignore" });
    const text = readFileSync(file, "utf8");
    expect(text).toStartWith("|1|");
    const kh = new KnownHosts({ systemFiles: [file], managedFile: join(dir, "managed_unused") });
    expect(kh.check("127.0.0.1", 2022, k.blob).status).toBe("known");
    expect(kh.check("other.example", 22, k.blob).status).toBe("known");
    expect(kh.check("127.0.0.1", 2023, k.blob).status).toBe("unknown");
    expect(kh.check("127.0.0.1", 2022, genKey("ed25519").blob)).toMatchObject({ status: "mismatch", entry: { file, line: 1 } });
  });
});

const skip = skipWithoutSshd("host key tests against sshd");

describe.skipIf(skip)("host keys against a real sshd", () => {
  let sshd: SshdHandle;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  const opts = (systemFiles: string[], managedFile = join(dir, `managed_${Math.random()}`), extra: Partial<ConnectOptions> = {}): ConnectOptions => ({
    knownHosts: new KnownHosts({ systemFiles, managedFile }),
    prompter: nonInteractive,
    secrets: new Map(),
    agentSocket: null,
    warn: () => {},
    ...extra,
  });
  const target = () => ({ label: "t", host: sshd.host, port: sshd.port, user: sshd.user, identityFiles: [sshd.clientKey] });

  test("a hashed OpenSSH known_hosts (ssh-keygen -H) is honoured and never written to", async () => {
    const file = join(dir, "openssh_hashed");
    writeFileSync(file, `# mine\n${sshd.knownHostsLines().join("\n")}\n`);
    execFileSync("ssh-keygen", ["-H", "-f", file], { stdio: "ignore" });
    const before = readFileSync(file, "utf8");
    const managed = join(dir, "managed_hashed");
    const conn = await connectSsh(target(), opts([file], managed));
    expect(conn.hostKeys[0]).toMatchObject({ outcome: "known", recordedAt: `${file}:2` });
    conn.close();
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(() => readFileSync(managed)).toThrow();
  });

  test("an RSA-only record makes the client negotiate RSA rather than report an unknown ED25519 key", async () => {
    const file = join(dir, "rsa_only");
    writeFileSync(file, `${sshd.knownHostsLines().find((l) => l.includes("ssh-rsa"))}\n`);
    const conn = await connectSsh(target(), opts([file]));
    expect(conn.hostKeys[0]!.outcome).toBe("known");
    conn.close();
  });

  test("@revoked is refused even with --accept-new", async () => {
    const file = join(dir, "revoked");
    writeFileSync(file, sshd.hostKeys.map((k) => `@revoked * ${k.publicKey}`).join("\n") + "\n");
    const err = await connectSsh(target(), opts([file], undefined, { acceptNew: true })).catch((e) => e);
    expect(err).toBeInstanceOf(HostKeyRevoked);
    expect(err.message).toContain(`${file}:1`);
  });

  test("--accept-new does not trust a new key type for a host with a recorded key of another type", async () => {
    const file = join(dir, "other_type");
    // The server has no ECDSA key, so it offers a type we have no record of: what an interceptor would do.
    writeFileSync(file, `[${sshd.host}]:${sshd.port} ${genKey("ecdsa").line}\n`);
    const managed = join(dir, "managed_other_type");
    const err = await connectSsh(target(), opts([file], managed, { acceptNew: true })).catch((e) => e);
    expect(err).toBeInstanceOf(HostUnknown);
    expect(err.message).toContain(`${file}:1`);
    expect(err.terminal).toBe(true);
    expect(() => readFileSync(managed)).toThrow();
  });

  test("@cert-authority is not supported: the host counts as unknown", async () => {
    const file = join(dir, "ca");
    writeFileSync(file, `@cert-authority * ${genKey("ed25519").line}\n`);
    const warnings: string[] = [];
    const err = await connectSsh(target(), opts([file], undefined, { warn: (m) => warnings.push(m) })).catch((e) => e);
    expect(err).toBeInstanceOf(HostUnknown);
    expect(warnings.join("\n")).toContain(`${file}:1: @cert-authority entries are not supported`);
  });

  test("a mismatch recorded in an OpenSSH file names that file and line; malformed lines only warn", async () => {
    const file = join(dir, "mismatch");
    const stale = genKey("ed25519");
    writeFileSync(file, `junk line here\n[${sshd.host}]:${sshd.port} ${stale.line}\n`);
    const warnings: string[] = [];
    const err = await connectSsh(target(), opts([file], undefined, { warn: (m) => warnings.push(m), acceptNew: true })).catch((e) => e);
    expect(err).toBeInstanceOf(HostKeyMismatch);
    expect(err.message).toContain(`${file}:2`);
    expect(warnings.some((w) => w.startsWith(`${file}:1: `) && w.endsWith("line ignored"))).toBe(true);
  });
});
