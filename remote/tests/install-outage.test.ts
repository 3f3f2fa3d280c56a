// A link lost during the first install (issue 34, item 2) is an outage like one
// after `ready`: connect says the link went (not "install script exited with
// null"), keeps waiting for it with the usual backoff instead of spending its
// three first-connection tries at once, and ends `ready` once the link is back.
// Real sshd; "the link" is a pacing relay that the test closes (connections
// refused meanwhile) and reopens on the same port.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startRelay, type Relay } from "../testing/relay.ts";
import { skipWithoutSshd } from "../testing/sshd-harness.ts";
import { interrupt, makeLocalEnv, startConnect, supervisorRig } from "./supervisor-support.ts";

const skip = skipWithoutSshd("install outage test");

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
    } finally {
      await interrupt(a);
      await relay.close();
      env.cleanup();
    }
  }, 400_000);
});
