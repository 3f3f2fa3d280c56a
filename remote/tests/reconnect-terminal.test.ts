// The reconnect loop must stop (exit 1, terminal error event) when the host
// key changed or authentication is refused after a drop — retrying cannot fix
// either. The drop is made by ending the sshd session processes of the test
// user (found by pid, only ours).
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestBinary, type TestBuild, BUILD_HOOK_MS } from "../testing/test-build.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { makeLocalEnv, startConnect, interrupt, type LocalEnv } from "./supervisor-support.ts";

const skip = skipWithoutSshd("reconnect terminal-error tests");

/** Kill the sshd processes serving `uid`'s sessions (the per-connection children), by pid. */
function dropSessions(uid: number): number {
  let n = 0;
  for (const ent of readdirSync("/proc")) {
    if (!/^\d+$/.test(ent)) continue;
    try {
      const status = readFileSync(`/proc/${ent}/status`, "utf8");
      const comm = readFileSync(`/proc/${ent}/comm`, "utf8").trim();
      const realUid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      if (comm === "sshd" && realUid === uid) {
        process.kill(Number(ent), "SIGKILL");
        n++;
      }
    } catch {}
  }
  return n;
}

describe.skipIf(skip)("reconnect stops on terminal SSH errors", () => {
  let build: TestBuild;
  let sshd: SshdHandle | undefined;
  let env: LocalEnv | undefined;

  beforeAll(async () => {
    build = await buildTestBinary();
  }, BUILD_HOOK_MS);
  afterEach(async () => {
    await sshd?.stop();
    env?.cleanup();
  });

  test("a rotated host key after a drop is a hard error naming the recorded line", async () => {
    sshd = await startSshd({ hostKeyTypes: ["ed25519"] });
    sshd.runAsUser("mkdir -p ~/w");
    env = makeLocalEnv(sshd, { releaseDir: build.releaseDir, workspace: "~/w" });
    const r = startConnect(env);
    try {
      await r.waitFor((e) => e.event === "ready", 120_000);
      await sshd.rotateHostKeys();
      expect(dropSessions(sshd.uid)).toBeGreaterThan(0);
      const err = await r.waitFor((e) => e.event === "error" && e.terminal, 60_000);
      expect(err.code).toBe("host_key_mismatch");
      expect(err.message).toMatch(/known_hosts:1/);
      expect(await r.exited).toBe(1);
      // It tried once after the drop and stopped; no endless loop.
      expect(r.events.filter((e) => e.event === "connecting").length).toBeLessThanOrEqual(3);
    } finally {
      await interrupt(r);
    }
  }, 180_000);

  test("authentication refused after a drop ends the loop", async () => {
    sshd = await startSshd();
    sshd.runAsUser("mkdir -p ~/w");
    env = makeLocalEnv(sshd, { releaseDir: build.releaseDir, workspace: "~/w" });
    const r = startConnect(env);
    try {
      await r.waitFor((e) => e.event === "ready", 120_000);
      writeFileSync(join(sshd.home, ".ssh", "authorized_keys"), "");
      expect(dropSessions(sshd.uid)).toBeGreaterThan(0);
      const err = await r.waitFor((e) => e.event === "error" && e.terminal, 60_000);
      expect(err.code).toBe("auth_failed");
      expect(await r.exited).toBe(1);
    } finally {
      await interrupt(r);
    }
  }, 180_000);
});
