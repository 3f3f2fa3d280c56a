// macOS has no `setsid` (issue 18, item 5): the bootstrap scripts must launch a
// serve that outlives the SSH session without it. sshd runs in a mount namespace
// where setsid is hidden from every PATH directory; a connect starts the serve,
// Ctrl-C ends the local side, and the next connect finds the same serve alive.
import { describe, expect, test } from "bun:test";
import { skipWithoutSshd } from "../testing/sshd-harness.ts";
import { interrupt, startConnect, supervisorRig } from "./supervisor-support.ts";

const skip = skipWithoutSshd("bootstrap without setsid");

describe.skipIf(skip)("bootstrap on a remote without setsid (real sshd, compiled serve)", () => {
  const rig = supervisorRig("proj", { hideCommands: ["setsid"] });

  test("setsid is really absent on that remote", async () => {
    const { connectToHarness } = await import("./ssh-cli-helpers.ts");
    const { runScript } = await import("../ssh/exec.ts");
    const { join } = await import("node:path");
    const conn = await connectToHarness(rig.sshd, join(rig.env.dir, "kh"));
    try {
      const r = await runScript(conn.client, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin:$PATH; command -v setsid || echo none");
      expect(r.stdout.trim()).toBe("none");
    } finally {
      conn.close();
    }
  });

  test("the serve starts, survives the end of the session, and is reused", async () => {
    let r = startConnect(rig.env);
    let pid = 0;
    try {
      const ready = await r.waitFor((e) => e.event === "ready", 150_000);
      expect(ready.via).toBe("started");
      pid = ready.pid;
    } finally {
      expect(await interrupt(r)).toBe(0);
    }
    // Give a session-bound child every chance to die with the session before we look.
    await Bun.sleep(1500);
    expect(() => process.kill(pid, 0)).not.toThrow();
    r = startConnect(rig.env);
    try {
      const again = await r.waitFor((e) => e.event === "ready", 60_000);
      expect(again.pid).toBe(pid);
      expect(again.reused).toBe(true);
    } finally {
      await interrupt(r);
    }
  }, 240_000);
});
