// The remote serve lock under hostile interleavings (issue 34, items 1 and 10),
// against a real sshd; the first client's link is a pacing relay so its upload
// can be caught midway:
// - a client paused mid-upload (SIGSTOP: a laptop lid closing) past the staleness
//   window loses the lock to a second client; resumed (SIGCONT) it must change
//   nothing and adopt the second client's serve: exactly one serve process for the
//   workspace, and `remote serve stop` leaves none;
// - Ctrl-C during the install frees the lock at once (no `serve-<slug>.lock/` left
//   for the next client to wait on).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { startRelay } from "../testing/relay.ts";
import { skipWithoutSshd } from "../testing/sshd-harness.ts";
import { interrupt, makeLocalEnv, startConnect, supervisorRig, type LocalEnv, type Running } from "./supervisor-support.ts";

const skip = skipWithoutSshd("remote lock fencing tests");
const MAIN = resolve(import.meta.dir, "../../cli/main.ts");

/** Pids of `reasonix serve` processes for this workspace (any user, any binary). */
function servesFor(workspace: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
    } catch {
      continue; // gone meanwhile
    }
    const w = args.indexOf("--workspace");
    if (args.includes("serve") && w > 0 && args[w + 1] === workspace) pids.push(Number(d));
  }
  return pids;
}

/** The env's host "box" goes through `port` (a relay) instead of straight to sshd. */
function viaPort(env: LocalEnv, port: number): void {
  const file = join(env.env.REASONIX_HOME!, "config.toml");
  writeFileSync(file, readFileSync(file, "utf8").replace(/^port = \d+$/m, `port = ${port}`), { mode: 0o600 });
}

/** Resolves once the upload has reached `share` of its (estimated) total. */
const uploadAt = (r: Running, share: number) => r.waitFor((e) => e.event === "installing" && e.phase === "upload" && e.total > 0 && e.done / e.total >= share, 120_000);

describe.skipIf(skip)("remote serve lock: fencing and release (real sshd)", () => {
  const rig = supervisorRig("fence");
  const ws = () => join(rig.sshd.home, "fence");
  const lockDirs = () => readdirSync(join(rig.sshd.home, ".reasonix/remote")).filter((n) => /^serve-fence-.*\.lock/.test(n));
  const rx = (env: LocalEnv, ...args: string[]) => {
    const r = spawnSync(process.execPath, [MAIN, "remote", ...args], { cwd: env.dir, env: env.env, timeout: 120_000 });
    return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };

  test("Ctrl-C during the install removes serve-<slug>.lock/ (the next client never waits on a gone holder)", async () => {
    // ~4 MB/s: the upload takes seconds, so the interrupt lands in the middle of it.
    const relay = await startRelay({ targetPort: rig.sshd.port, rateBytesPerSec: 4_000_000 });
    const env = makeLocalEnv(rig.sshd, { releaseDir: rig.build.releaseDir, workspace: "~/fence" });
    viaPort(env, relay.port);
    const a = startConnect(env);
    try {
      await uploadAt(a, 0.2);
      expect(lockDirs().length).toBe(1);
      expect({ code: await interrupt(a), stderr: a.stderr() }).toMatchObject({ code: 0 });
      expect(a.events.some((e) => e.event === "ready")).toBe(false);
      // Removed on the remote as the holder's session closes; bounded wait for that effect.
      await pollFor("the lock directory to go", lockDirs, (l) => l.length === 0, { timeoutMs: 15_000, show: (l) => l.join(", ") });
      // The next client gets the lock without a single waiting_for_lock.
      const b = startConnect(rig.env);
      try {
        await b.waitFor((e) => e.event === "ready", 120_000);
        expect(b.events.filter((e) => e.event === "waiting_for_lock")).toEqual([]);
      } finally {
        await interrupt(b);
      }
    } finally {
      await interrupt(a);
      await relay.close();
      env.cleanup();
    }
  }, 240_000);

  test("a client paused mid-upload past the staleness window adopts the serve of the client that took over: one serve, and serve stop leaves none", async () => {
    // Start cold: no binary on the remote, no serve.
    expect(rx(rig.env, "serve", "stop", "box", "--accept-new")).toMatchObject({ code: 0 });
    rig.sshd.runAsUser("rm -rf ~/.reasonix/remote/bin");
    expect(servesFor(ws())).toEqual([]);
    const relay = await startRelay({ targetPort: rig.sshd.port, rateBytesPerSec: 4_000_000 });
    const envA = makeLocalEnv(rig.sshd, { releaseDir: rig.build.releaseDir, workspace: "~/fence" });
    viaPort(envA, relay.port);
    // The second client judges a lock stale after 2 s without a fresh stamp (60 s by default).
    const envB = makeLocalEnv(rig.sshd, { releaseDir: rig.build.releaseDir, workspace: "~/fence" });
    envB.env.REASONIX_REMOTE_LOCK_STALE_S = "2";
    const a = startConnect(envA);
    let b: Running | null = null;
    try {
      await uploadAt(a, 0.3);
      a.child.kill("SIGSTOP");
      b = startConnect(envB);
      const readyB = await b.waitFor((e) => e.event === "ready", 120_000);
      expect(readyB.reused).toBe(false);
      expect(servesFor(ws())).toEqual([readyB.pid]);
      const from = a.events.length;
      a.child.kill("SIGCONT");
      const readyA = await a.waitFor((e) => e.event === "ready", 120_000, from);
      expect(readyA.pid).toBe(readyB.pid);
      expect(readyA.reused).toBe(true);
      expect(a.events.slice(from).some((e) => e.event === "starting")).toBe(false);
      expect(servesFor(ws())).toEqual([readyB.pid]);
      expect(lockDirs()).toEqual([]);
      await interrupt(a);
      await interrupt(b);
      const stop = rx(envB, "serve", "stop", "box");
      expect(stop.code).toBe(0);
      expect(servesFor(ws())).toEqual([]);
      expect(existsSync(join(rig.sshd.home, ".reasonix/remote/bin", `reasonix-${rig.build.version}`))).toBe(true);
    } finally {
      a.child.kill("SIGCONT");
      await interrupt(a);
      if (b) await interrupt(b);
      await relay.close();
      envA.cleanup();
      envB.cleanup();
    }
  }, 300_000);
});
