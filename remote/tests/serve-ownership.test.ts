// The serve token goes only to a serve that is provably ours. A fake "serve" (a
// shell loop whose command line looks like one) and an impostor HTTP server on
// loopback that records Authorization headers stand in for the two ways a stale
// record could mislead us: a pid reused by another process, and a remembered
// address whose serve has gone and whose port someone else now holds.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { connectToHarness } from "./ssh-cli-helpers.ts";

const skip = skipWithoutSshd("serve ownership tests");
const V = "0.0.0-ownership-test";

describe.skipIf(skip)("the token never reaches a serve that is not ours (real sshd)", () => {
  let sshd: SshdHandle;
  let conn: import("../ssh/connect.ts").SshConnection;
  let dir: string;
  let impostor: ReturnType<typeof Bun.serve>;
  const seen: string[] = [];
  const fakes: number[] = [];
  let slug = "";
  let ws = "";
  const R = () => join(sshd.home, ".reasonix/remote");

  /** Start a long-lived process as the test user whose args look like a serve of version V. */
  const startFake = (pidFile: string): number => {
    const bin = `${R()}/bin/reasonix-${V}`;
    sshd.runAsUser(
      `printf '#!/bin/sh\\n[ -f "$HOME/fake-live" ] || exit 1\\nwhile :; do sleep 1; done\\n' > '${bin}' && chmod 755 '${bin}' && touch ~/fake-live`,
    );
    const out = sshd.runAsUser(`setsid nohup '${bin}' serve --addr 127.0.0.1:0 --pid-file '${pidFile}' --workspace '${ws}' </dev/null >/dev/null 2>&1 & echo $!`);
    // Later launches of the same "binary" die at once, like a broken serve.
    sshd.runAsUser("sleep 0.3; rm -f ~/fake-live");
    const pid = Number(out.trim());
    fakes.push(pid);
    return pid;
  };

  const writeRecord = (pid: number, recordPid: number, token: string) => {
    const json = JSON.stringify({ pid: recordPid, addr: `127.0.0.1:${impostor.port}`, workspace: ws, version: V, started_at: "2026-01-01T00:00:00Z" });
    sshd.runAsUser(
      `cd '${R()}' && echo ${pid} > serve-${slug}.pid && echo ${token} > serve-${slug}.token && printf '%s\\n' '${json}' > serve-${slug}.json`,
    );
  };

  beforeAll(async () => {
    sshd = await startSshd();
    sshd.runAsUser("mkdir -p ~/ws");
    dir = mkdtempSync(join(tmpdir(), "rx-own-"));
    impostor = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const auth = req.headers.get("authorization");
        if (auth) seen.push(auth);
        const path = new URL(req.url).pathname;
        if (path === "/healthz") return Response.json({ ok: true, version: V });
        return Response.json({ workspace: ws });
      },
    });
    conn = await connectToHarness(sshd, join(dir, "kh"));
    const { readRemoteState } = await import("../bootstrap/bootstrap.ts");
    const s = await readRemoteState(conn.client, "~/ws", V);
    slug = s.slug;
    ws = s.workspace;
  }, 60_000);

  afterAll(async () => {
    for (const pid of fakes) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    conn?.close();
    impostor?.stop(true);
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a live serve whose record names another pid's address is not reused", async () => {
    const pid = startFake(`${R()}/serve-${slug}.pid`);
    // The record is left over from an earlier serve (another pid) whose port is now the impostor's.
    writeRecord(pid, pid + 100_000, "a".repeat(64));
    seen.length = 0;
    const { ensureServe } = await import("../bootstrap/bootstrap.ts");
    const err = await ensureServe(conn.client, { workspace: "~/ws", version: V, install: "never" }).catch((e) => e);
    expect(seen).toEqual([]);
    expect(err?.code).toBe("serve_start_failed");
  }, 60_000);

  test("a process started with someone else's pid file of the same name is not ours", async () => {
    sshd.runAsUser("mkdir -p ~/other/.reasonix/remote");
    const pid = startFake(`${sshd.home}/other/.reasonix/remote/serve-${slug}.pid`);
    writeRecord(pid, pid, "b".repeat(64));
    seen.length = 0;
    const { ensureServe, readRemoteState, isOurServe } = await import("../bootstrap/bootstrap.ts");
    expect(isOurServe(await readRemoteState(conn.client, "~/ws", V))).toBe(false);
    const err = await ensureServe(conn.client, { workspace: "~/ws", version: V, install: "never" }).catch((e) => e);
    expect(seen).toEqual([]);
    expect(err?.code).toBe("serve_start_failed");
    // Not ours, so not stopped either.
    expect(() => process.kill(pid, 0)).not.toThrow();
  }, 60_000);

  test("a remembered serve is confirmed on the remote before the token is sent", async () => {
    // The remembered serve is gone (no pid file, no binary); its old port now answers like a serve.
    sshd.runAsUser(`rm -f '${R()}'/serve-* '${R()}/bin/reasonix-${V}'`);
    const { ServeCache } = await import("../supervisor/serve-cache.ts");
    const { Supervisor } = await import("../supervisor/supervisor.ts");
    const cache = new ServeCache(join(dir, "cache"));
    const token = "c".repeat(64);
    cache.put("box", "~/ws", { pid: 4_000_000, addr: { host: "127.0.0.1", port: Number(impostor.port) }, token, version: V, workspace: ws, slug, startedAt: "", reused: false });
    seen.length = 0;
    const events: { event: string; code?: string }[] = [];
    const sup: InstanceType<typeof Supervisor> = new Supervisor({
      host: "box",
      dial: () => connectToHarness(sshd, join(dir, "kh"), false),
      bootstrap: { workspace: "~/ws", version: V, install: "never" },
      cache,
      initialAttempts: 1,
      onEvent: (e) => {
        events.push(e as { event: string; code?: string });
        if (e.event === "ready" || (e.event === "error" && e.terminal)) sup.stop();
      },
    });
    await sup.run();
    expect(seen).toEqual([]);
    expect(events.some((e) => e.event === "ready")).toBe(false);
    expect(events.find((e) => e.event === "error")?.code).toBe("serve_missing");
  }, 60_000);
});
