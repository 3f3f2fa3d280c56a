import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";

// Real sshd processes and CLI runs on a shared, busy machine: allow generous time.
setDefaultTimeout(60_000);

const skip = skipWithoutSshd("sshd harness tests");

describe.skipIf(skip)("sshd harness", () => {
  let sshd: SshdHandle;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });

  test("OpenSSH client logs in as the generated user with the generated key", () => {
    const kh = join(sshd.dir, "client_known_hosts");
    writeFileSync(kh, `${sshd.knownHostsLines().join("\n")}\n`);
    const out = execFileSync("ssh", [
      "-F", "/dev/null", "-i", sshd.clientKey, "-p", String(sshd.port),
      "-o", `UserKnownHostsFile=${kh}`, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
      `${sshd.user}@${sshd.host}`, "id -un; echo $HOME",
    ]).toString().trim().split("\n");
    expect(out).toEqual([sshd.user, sshd.home]);
  });

  test("teardown removes the user", async () => {
    const other = await startSshd();
    const name = other.user;
    expect(execFileSync("id", ["-un", name]).toString().trim()).toBe(name);
    await other.stop();
    expect(() => execFileSync("id", [name], { stdio: "ignore" })).toThrow();
  });
});
