// The remote mkdir lock: a waiter takes an empty stamp for a holder that died
// before stamping (and breaks the lock once it has waited 60 s), so a live
// holder refreshing its stamp must never let anyone read it empty.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chownSync, closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCK_SCRIPT, STATE_SCRIPT, parseKv } from "../bootstrap/scripts.ts";
import { runScript } from "../ssh/exec.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { connectToHarness } from "./ssh-cli-helpers.ts";

const skip = skipWithoutSshd("remote lock tests");

describe.skipIf(skip)("remote serve lock (real sshd)", () => {
  let sshd: SshdHandle;
  let conn: import("../ssh/connect.ts").SshConnection;
  let dir: string;

  beforeAll(async () => {
    sshd = await startSshd();
    sshd.runAsUser("mkdir -p ~/ws");
    dir = mkdtempSync(join(tmpdir(), "rx-lock-"));
    conn = await connectToHarness(sshd, join(dir, "kh"));
  }, 60_000);

  afterAll(async () => {
    conn?.close();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a refreshed stamp is never seen empty by a waiter", async () => {
    const { readRemoteState } = await import("../bootstrap/bootstrap.ts");
    const s = await readRemoteState(conn.client, "~/ws", "1.0.0", "holder");
    expect(s.locked).toBe(true);
    const script = join(sshd.home, "lock-refresh.sh");
    writeFileSync(script, LOCK_SCRIPT);
    chownSync(script, sshd.uid, sshd.uid);
    const L = `$HOME/.reasonix/remote/serve-${s.slug}.lock`;
    // The holder refreshes in a bounded loop while a reader polls the stamp like a waiter does.
    const refresher = runScript(conn.client, `i=0; while [ $i -lt 400 ]; do /bin/sh "$HOME/lock-refresh.sh" '${s.slug}' holder refresh >/dev/null; i=$((i + 1)); done; echo done=1`, { timeoutMs: 120_000 });
    const reader = runScript(
      conn.client,
      `i=0; e=0; while [ $i -lt 4000 ]; do t=$(cat "${L}/stamp" 2>/dev/null); [ -z "$t" ] && e=$((e + 1)); i=$((i + 1)); done; echo empties=$e`,
      { timeoutMs: 120_000 },
    );
    const [ref, read] = await Promise.all([refresher, reader]);
    expect(parseKv(ref.stdout).get("done")).toBe("1");
    expect(parseKv(read.stdout).get("empties")).toBe("0");
    // The holder still owns it and can release it.
    const rel = await runScript(conn.client, LOCK_SCRIPT, { args: [s.slug, "holder", "release"] });
    expect(parseKv(rel.stdout).get("ok")).toBe("1");
    expect(sshd.runAsUser(`ls -A ${L.replace("$HOME", "~")} 2>/dev/null || echo gone`).trim()).toBe("gone");
  }, 150_000);

  test("a breaker never deletes a lock that another client broke and re-took meanwhile", async () => {
    const { readRemoteState } = await import("../bootstrap/bootstrap.ts");
    const { slug } = await readRemoteState(conn.client, "~/ws", "1.0.0");
    const L = join(sshd.home, ".reasonix/remote", `serve-${slug}.lock`);
    // An abandoned lock whose stamp is a FIFO: the waiter's read of it blocks until we answer,
    // which pins the waiter between judging the lock and acting on that judgement.
    sshd.runAsUser(`mkdir -p '${L}' && echo dead > '${L}/owner' && mkfifo '${L}/stamp'`);
    const waiter = runScript(conn.client, STATE_SCRIPT, { args: ["~/ws", "1.0.0", "lock", "waiter"], timeoutMs: 60_000 });
    let fd = -1;
    try {
      // Opening a FIFO for writing without blocking succeeds only once a reader has it open.
      for (let i = 0; i < 400 && fd < 0; i++) {
        try {
          fd = openSync(`${L}/stamp`, constants.O_WRONLY | constants.O_NONBLOCK);
        } catch {
          await Bun.sleep(50);
        }
      }
      expect(fd).toBeGreaterThanOrEqual(0);
      // Meanwhile another client breaks the abandoned lock and takes it: live, freshly stamped.
      sshd.runAsUser(`mv '${L}' '${L}.gone' && mkdir '${L}' && echo other > '${L}/owner' && date +%s > '${L}/stamp'`);
      // Only now does the waiter get the old stamp it was reading, and judge the lock stale.
      writeSync(fd, `${Math.floor(Date.now() / 1000) - 120}\n`);
    } finally {
      if (fd >= 0) closeSync(fd);
    }
    await Bun.sleep(2000);
    expect(readFileSync(`${L}/owner`, "utf8").trim()).toBe("other");
    // The other client releases; the waiter takes the lock the ordinary way.
    rmSync(L, { recursive: true, force: true });
    rmSync(`${L}.gone`, { recursive: true, force: true });
    const r = parseKv((await waiter).stdout);
    expect(r.get("locked")).toBe("1");
    expect(r.get("lock_broken")).toBeUndefined();
    rmSync(L, { recursive: true, force: true });
  }, 90_000);
  test("the first look takes the lock only for a cold install, and never for a missing workspace", async () => {
    const { readRemoteState } = await import("../bootstrap/bootstrap.ts");
    const lockDir = (slug: string) => join(sshd.home, ".reasonix/remote", `serve-${slug}.lock`);
    const gone = (slug: string) => sshd.runAsUser(`ls -d '${lockDir(slug)}' 2>/dev/null || echo gone`).trim();
    // No binary of this version: the look that finds nothing to reuse holds the lock already.
    const cold = await readRemoteState(conn.client, "~/ws", "2.0.0", "cold", { onlyIfCold: true });
    expect(cold.haveBin).toBe(false);
    expect(cold.locked).toBe(true);
    expect(readFileSync(`${lockDir(cold.slug)}/owner`, "utf8").trim()).toBe("cold");
    await runScript(conn.client, LOCK_SCRIPT, { args: [cold.slug, "cold", "release"] });
    expect(gone(cold.slug)).toBe("gone");
    // The binary is there: a serve may be reusable, so no lock is taken on the first look.
    sshd.runAsUser("mkdir -p ~/.reasonix/remote/bin && printf '#!/bin/sh\\n' > ~/.reasonix/remote/bin/reasonix-2.0.0 && chmod 755 ~/.reasonix/remote/bin/reasonix-2.0.0");
    try {
      const warm = await readRemoteState(conn.client, "~/ws", "2.0.0", "warm", { onlyIfCold: true });
      expect(warm.haveBin).toBe(true);
      expect(warm.locked).toBe(false);
      expect(gone(warm.slug)).toBe("gone");
    } finally {
      sshd.runAsUser("rm -f ~/.reasonix/remote/bin/reasonix-2.0.0");
    }
    // A deleted workspace with a serve recorded for it is an error: it must not leave a lock behind.
    sshd.runAsUser("mkdir -p ~/ws-deleted");
    const rec = await readRemoteState(conn.client, "~/ws-deleted", "2.0.0");
    sshd.runAsUser(`printf '%s\\n' '{"pid":1,"workspace":"${join(sshd.home, "ws-deleted")}"}' > ~/.reasonix/remote/serve-${rec.slug}.json && rmdir ~/ws-deleted`);
    try {
      await expect(readRemoteState(conn.client, "~/ws-deleted", "2.0.0", "missing", { onlyIfCold: true })).rejects.toThrow(/does not exist/);
      expect(gone(rec.slug)).toBe("gone");
    } finally {
      sshd.runAsUser(`rm -f ~/.reasonix/remote/serve-${rec.slug}.json`);
    }
  }, 60_000);
});
