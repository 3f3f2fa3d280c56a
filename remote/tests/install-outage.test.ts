// A link lost during the first install (issue 34, item 2) is an outage like one
// after `ready`: connect says the link went (not "install script exited with
// null"), keeps waiting for it with the usual backoff instead of spending its
// three first-connection tries at once, ends `ready` once the link is back, and
// resumes the upload from what arrived instead of from zero.
// Real sshd; "the link" is a pacing relay that the test closes (connections
// refused meanwhile) and reopens on the same port.
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zstdCliArgs } from "../bootstrap/stream-compress.ts";
import { startRelay, type Relay } from "../testing/relay.ts";
import { skipWithoutSshd } from "../testing/sshd-harness.ts";
import { interrupt, makeLocalEnv, startConnect, supervisorRig } from "./supervisor-support.ts";

const skip = skipWithoutSshd("install outage test");

/** Bytes of the whole binary compressed as connect streams it here (zstd -3, REASONIX_REMOTE_ZSTD_LEVEL in the test env). */
async function wholeStreamBytes(path: string): Promise<number> {
  const p = Bun.spawn(zstdCliArgs(Bun.which("zstd")!, 3), { stdin: Bun.file(path), stdout: "pipe" });
  return (await new Response(p.stdout).arrayBuffer()).byteLength;
}

describe.skipIf(skip)("a lost link during the first install (real sshd)", () => {
  const rig = supervisorRig("outage");

  test("connect waits for the link with backoff, names the lost link, and is ready once it is back", async () => {
    let relay: Relay = await startRelay({ targetPort: rig.sshd.port, rateBytesPerSec: 4_000_000 });
    const port = relay.port;
    const env = makeLocalEnv(rig.sshd, { releaseDir: rig.build.releaseDir, workspace: "~/outage" });
    const file = join(env.env.REASONIX_HOME!, "config.toml");
    writeFileSync(file, readFileSync(file, "utf8").replace(/^port = \d+$/m, `port = ${port}`), { mode: 0o600 });
    const a = startConnect(env);
    try {
      await a.waitFor((e) => e.event === "installing" && e.phase === "upload" && e.total > 0 && e.done / e.total >= 0.25, 120_000);
      const cut = a.events.length;
      await relay.close();
      const down = await a.waitFor((e) => e.event === "disconnected", 60_000, cut);
      expect(down.reason).not.toContain("install script exited");
      // More tries than the three a first connection gets: it waits for the link.
      await a.waitFor((e) => e.event === "reconnecting" && e.attempt >= 4, 120_000, cut);
      const back = a.events.length;
      relay = await startRelay({ targetPort: rig.sshd.port, rateBytesPerSec: 4_000_000, port });
      const ready = await a.waitFor((e) => e.event === "ready", 180_000, back);
      expect(ready.reused).toBe(false);
      expect(a.events.filter((e) => e.event === "error" && e.terminal)).toEqual([]);
      expect(a.events.slice(cut).filter((e) => e.event === "reconnecting").every((e) => !String(e.reason).includes("install script exited"))).toBe(true);
      // The upload resumed from what arrived: fewer bytes sent after the cut than a whole
      // stream of the binary at the same codec and level.
      const installed = a.events.slice(cut).find((e) => e.event === "installed")!;
      expect(installed.resumed_from).toBeGreaterThan(0.1 * statSync(rig.build.binary).size);
      const whole = await wholeStreamBytes(rig.build.binary);
      expect(installed.bytes).toBeLessThan(0.85 * whole);
    } finally {
      await interrupt(a);
      await relay.close();
      env.cleanup();
    }
  }, 400_000);
});
