// The remote mkdir lock: a waiter takes an empty stamp for a holder that died
// before stamping (and breaks the lock once it has waited 60 s), so a live
// holder refreshing its stamp must never let anyone read it empty.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCK_SCRIPT, parseKv } from "../bootstrap/scripts.ts";
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
});
