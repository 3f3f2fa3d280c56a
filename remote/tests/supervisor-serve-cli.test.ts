// `reasonix remote serve status|start|stop|logs` against a real sshd.
import { describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { skipWithoutSshd } from "../testing/sshd-harness.ts";
import { supervisorRig } from "./supervisor-support.ts";
import { pollFor } from "../../core/testing/fresh-wait.ts";

const skip = skipWithoutSshd("remote serve CLI tests");
const MAIN = resolve(import.meta.dir, "../../cli/main.ts");

describe.skipIf(skip)("remote serve status/start/stop/logs", () => {
  const rig = supervisorRig("app");
  const rx = (...args: string[]) => {
    const r = spawnSync(process.execPath, [MAIN, "remote", "serve", ...args], { cwd: rig.env.dir, env: rig.env.env, timeout: 120_000 });
    return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };

  test("status before anything runs, start, status, logs, stop", async () => {
    let r = rx("status", "box", "--json", "--accept-new");
    expect(r.code).toBe(0);
    let st = JSON.parse(r.stdout);
    expect(st).toMatchObject({ running: false, pid: null, workspace: join(rig.sshd.home, "app"), local_version_installed: false });

    r = rx("start", "box", "--json");
    expect(r.code).toBe(0);
    const started = JSON.parse(r.stdout);
    expect(started.reused).toBe(false);
    expect(started.token).toBeUndefined();
    expect(started.pid).toBeGreaterThan(0);

    r = rx("start", "box", "--json");
    expect(JSON.parse(r.stdout)).toMatchObject({ reused: true, pid: started.pid });

    st = JSON.parse(rx("status", "box", "--json").stdout);
    expect(st).toMatchObject({ running: true, pid: started.pid, version: rig.build.version, healthy: true, local_version_installed: true });
    expect(rx("status", "box").stdout).toContain(`running pid ${started.pid}`);

    r = rx("logs", "box", "-n", "50");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("starting");
    expect(r.stdout).toContain(`workspace ${join(rig.sshd.home, "app")}`);

    // --follow streams until Ctrl-C and leaves no tail behind on the remote.
    const f = spawn(process.execPath, [MAIN, "remote", "serve", "logs", "box", "-n", "5", "--follow"], { cwd: rig.env.dir, env: rig.env.env, stdio: ["ignore", "pipe", "pipe"] });
    let followed = "";
    f.stdout!.on("data", (d: Buffer) => (followed += d.toString()));
    await pollFor("the log's last lines", () => followed, (s) => s.includes("starting") || f.exitCode !== null);
    expect(followed).toContain("starting");
    rig.sshd.runAsUser('for f in ~/.reasonix/remote/serve-app-*.log; do echo a-new-line-for-follow >> "$f"; done');
    await pollFor("the appended line followed", () => followed, (s) => s.includes("a-new-line-for-follow"));
    f.kill("SIGINT");
    expect(await new Promise((res) => f.on("exit", res))).toBe(0);
    let tails = "x";
    for (let i = 0; i < 40 && tails !== ""; i++) {
      await Bun.sleep(100);
      tails = rig.sshd.runAsUser("pgrep -u \"$(id -un)\" -x tail || true").trim();
    }
    expect(tails).toBe("");

    r = rx("stop", "box");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`stopped remote serve ${started.pid}`);
    expect(() => process.kill(started.pid, 0)).toThrow();
    st = JSON.parse(rx("status", "box", "--json").stdout);
    expect(st.running).toBe(false);
    expect(rx("stop", "box").stderr).toContain("no remote serve running");
  }, 180_000);

  test("an unknown host is a clear error", () => {
    const r = rx("status", "nope");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no remote host named "nope"');
  });
});
