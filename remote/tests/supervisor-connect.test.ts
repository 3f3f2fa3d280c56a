// `reasonix remote connect` end to end against a real sshd: first connect
// installs and starts the serve, HTTP goes through the tunnel, Ctrl-C leaves the
// serve running, the next connect reuses it (same pid), and a serve of another
// version is stopped and replaced.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { skipWithoutSshd } from "../testing/sshd-harness.ts";
import { buildTestBinary } from "../testing/test-build.ts";
import { httpGet, interrupt, startConnect, supervisorRig } from "./supervisor-support.ts";

const skip = skipWithoutSshd("remote connect supervisor tests");

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(skip)("remote connect (real sshd, compiled serve)", () => {
  const rig = supervisorRig("proj");
  let firstPid = 0;

  test("first connect installs the binary, starts the serve and tunnels HTTP", async () => {
    const r = startConnect(rig.env);
    try {
      const ready = await r.waitFor((e) => e.event === "ready", 120_000);
      expect(r.events.some((e) => e.event === "connecting")).toBe(true);
      expect(r.events.some((e) => e.event === "connected")).toBe(true);
      const installed = r.events.find((e) => e.event === "installed");
      expect(installed?.codec).toBe("zstd");
      expect(installed!.bytes).toBeLessThan(installed!.binary_size);
      expect(r.events.some((e) => e.event === "installing" && e.phase === "upload")).toBe(true);
      expect(ready.reused).toBe(false);
      expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[0-9a-f]{64}$/);
      firstPid = ready.pid;
      expect(pidAlive(firstPid)).toBe(true);

      const token = /#token=([0-9a-f]+)/.exec(ready.url)![1]!;
      const health = await httpGet(ready.local_port, "/healthz");
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body).version).toBe(rig.build.version);
      expect((await httpGet(ready.local_port, "/api/status")).status).toBe(401);
      const status = await httpGet(ready.local_port, "/api/status", { authorization: `Bearer ${token}` });
      expect(status.status).toBe(200);
      expect(JSON.parse(status.body).workspace).toBe(join(rig.sshd.home, "proj"));

      // Remote state: version-matched binary, 0600 token and json, the token never on a command line.
      const remote = join(rig.sshd.home, ".reasonix", "remote");
      expect(existsSync(join(remote, "bin", `reasonix-${rig.build.version}`))).toBe(true);
      const listing = rig.sshd.runAsUser("cd ~/.reasonix/remote && stat -c '%a %n' serve-*.token serve-*.json");
      for (const line of listing.trim().split("\n")) expect(line.startsWith("600 ")).toBe(true);
      const json = JSON.parse(rig.sshd.runAsUser("cat ~/.reasonix/remote/serve-*.json"));
      expect(json).toMatchObject({ pid: firstPid, workspace: join(rig.sshd.home, "proj"), version: rig.build.version });
      expect(readFileSync(`/proc/${firstPid}/cmdline`, "utf8")).not.toContain(token);
    } finally {
      expect(await interrupt(r)).toBe(0);
    }
    // Ctrl-C ended only the local side.
    expect(pidAlive(firstPid)).toBe(true);
  }, 180_000);

  test("the next connect reuses the running serve (same pid), also without the local cache", async () => {
    for (const dropCache of [false, true]) {
      if (dropCache) rmSync(join(rig.env.env.REASONIX_HOME!, "remote", "serve-cache"), { recursive: true, force: true });
      const r = startConnect(rig.env);
      try {
        const ready = await r.waitFor((e) => e.event === "ready", 60_000);
        expect(ready.reused).toBe(true);
        expect(ready.pid).toBe(firstPid);
        expect(r.events.some((e) => e.event === "installing" || e.event === "installed")).toBe(false);
        expect((await httpGet(ready.local_port, "/healthz")).status).toBe(200);
      } finally {
        expect(await interrupt(r)).toBe(0);
      }
    }
  }, 120_000);

  test("a serve of another version is stopped and replaced", async () => {
    const other = await buildTestBinary("0.0.1-old");
    // Start an old-version serve for the same workspace through the same bootstrap code.
    const { connectSsh } = await import("../ssh/connect.ts");
    const { KnownHosts } = await import("../hostkeys/store.ts");
    const { nonInteractive } = await import("../ssh/prompt.ts");
    const { ensureServe } = await import("../bootstrap/bootstrap.ts");
    const conn = await connectSsh(
      { label: "box", host: rig.sshd.host, port: rig.sshd.port, user: rig.sshd.user, identityFiles: [rig.sshd.clientKey] },
      { acceptNew: true, knownHosts: new KnownHosts({ systemFiles: [], managedFile: join(rig.env.dir, "kh") }), prompter: nonInteractive, secrets: new Map(), agentSocket: null, warn: () => {} },
    );
    let oldPid: number;
    try {
      const old = await ensureServe(conn.client, { workspace: "~/proj", version: other.version, binaryPath: other.binary, cacheDir: join(rig.env.dir, "cache"), compressionLevel: 1 });
      expect(old.reused).toBe(false);
      oldPid = old.pid;
      expect(pidAlive(firstPid)).toBe(false); // 0.1.x serve was replaced by the old one
    } finally {
      conn.close();
    }
    const r = startConnect(rig.env);
    try {
      const ready = await r.waitFor((e) => e.event === "ready", 120_000);
      expect(r.events.find((e) => e.event === "stopping_old")).toMatchObject({ pid: oldPid, version: other.version });
      expect(ready.reused).toBe(false);
      expect(ready.pid).not.toBe(oldPid);
      expect(pidAlive(oldPid)).toBe(false);
      // The binary of this version was already there: nothing uploaded.
      expect(r.events.some((e) => e.event === "installed")).toBe(false);
      const h = await httpGet(ready.local_port, "/healthz");
      expect(JSON.parse(h.body).version).toBe(rig.build.version);
    } finally {
      expect(await interrupt(r)).toBe(0);
    }
  }, 240_000);

  test("two concurrent connects produce one launch", async () => {
    rig.sshd.runAsUser("mkdir -p ~/second");
    const a = startConnect(rig.env, ["--workspace", "~/second"]);
    const b = startConnect(rig.env, ["--workspace", "~/second"]);
    try {
      const [ra, rb] = await Promise.all([a.waitFor((e) => e.event === "ready", 120_000), b.waitFor((e) => e.event === "ready", 120_000)]);
      expect(ra.pid).toBe(rb.pid);
      expect([ra.reused, rb.reused].filter((x) => !x).length).toBe(1);
      const starts = rig.sshd.runAsUser("grep -c 'starting' ~/.reasonix/remote/serve-second-*.log").trim();
      expect(starts).toBe("1");
    } finally {
      await Promise.all([interrupt(a), interrupt(b)]);
    }
  }, 180_000);
});
