// Serve health while connected (issue 18, item 2): a serve killed or hung under
// a live `remote connect` is noticed (health checks through the tunnel, and at
// once on a refused tunnel connection) and restarted with the SAME token on the
// SAME local port, so the URL handed out keeps working; a crash loop ends with
// the tail of the serve log; a deleted workspace is named, and `serve
// status/stop` still manage a serve left running there; `serve restart` keeps
// the token unless --new-token. Real sshd, compiled serve.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildTestBinary, type TestBuild, BUILD_HOOK_MS } from "../testing/test-build.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { httpGet, interrupt, makeLocalEnv, startConnect, type LocalEnv } from "./supervisor-support.ts";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";

const skip = skipWithoutSshd("serve health tests");
const ROOT = resolve(import.meta.dir, "../..");

const tokenOf = (url: string) => /#token=([0-9a-f]+)/.exec(url)![1]!;
const kill = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {}
};

describe.skipIf(skip)("remote serve health while connected (real sshd, compiled serve)", () => {
  let sshd: SshdHandle;
  let build: TestBuild;
  let env: LocalEnv;
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [join(ROOT, "cli/main.ts"), ...args], { cwd: env.dir, env: env.env, timeout: 90_000 });
    return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };

  beforeAll(async () => {
    [build, sshd] = await Promise.all([buildTestBinary(), startSshd()]);
    sshd.runAsUser("mkdir -p ~/proj");
    env = makeLocalEnv(sshd, { releaseDir: build.releaseDir, workspace: "~/proj" });
    env.env.REASONIX_REMOTE_HEALTH_MS = "1000";
  }, BUILD_HOOK_MS);

  afterAll(async () => {
    await sshd?.stop();
    env?.cleanup();
  });

  test("kill -9 of the serve: serve_lost, serve_restarted, and the same URL with the same token answers again", async () => {
    const r = startConnect(env);
    try {
      const ready = await r.waitFor((e) => e.event === "ready", 150_000);
      const token = tokenOf(ready.url);
      kill(ready.pid, "SIGKILL");
      // A request right away is refused by the dead serve: that alone triggers the check.
      await httpGet(ready.local_port, "/healthz").catch(() => null);
      const lost = await r.waitFor((e) => e.event === "serve_lost", 30_000);
      expect(lost.pid).toBe(ready.pid);
      const again = await r.waitFor((e) => e.event === "serve_restarted", 60_000);
      expect(again.previous_pid).toBe(ready.pid);
      expect(again.pid).not.toBe(ready.pid);
      expect(again.url).toBe(ready.url);
      const st = await httpGet(ready.local_port, "/api/status", { authorization: `Bearer ${token}` });
      expect(st.status).toBe(200);

      // The dead serve left a sanitized crash report here (issue 31), announced in one line.
      const reports = join(env.env.REASONIX_HOME!, "crash-reports");
      const file = await pollFor("a crash report for the dead serve", () => (existsSync(reports) ? readdirSync(reports).filter((f) => f.endsWith(".json")) : []), (fs) => fs.length > 0, { timeoutMs: 30_000 });
      const path = join(reports, file[0]!);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const report = JSON.parse(readFileSync(path, "utf8"));
      expect(report).toMatchObject({ frontEnd: "remote", errorClass: "ChildDied" });
      expect(report.message).toContain(`the remote serve (pid ${ready.pid}) died`);
      expect(JSON.stringify(report)).not.toContain(token);
      await pollFor("the one-line notice", () => r.stderr(), (e) => e.includes(`the remote serve (pid ${ready.pid}) died; a crash report was saved to ${path}`), { timeoutMs: 10_000 });

      // A hung serve (stopped, port still open) is found by the timed-out check and replaced.
      kill(again.pid, "SIGSTOP");
      const hung = await r.waitFor((e) => e.event === "serve_lost" && e.pid === again.pid, 60_000);
      expect(hung.reason).toMatch(/timeout/);
      const third = await r.waitFor((e) => e.event === "serve_restarted" && e.previous_pid === again.pid, 60_000);
      expect(third.url).toBe(ready.url);
      expect((await httpGet(ready.local_port, "/api/status", { authorization: `Bearer ${token}` })).status).toBe(200);

      // The third loss within 60 s is a crash loop: an error with the log's tail, exit 1.
      // (Bounded: on a slow machine the first loss may have left the window; kill again.)
      let victim = third.pid as number;
      let err: Record<string, any> | null = null;
      for (let i = 0; i < 3 && !err; i++) {
        const from = r.events.length;
        kill(victim, "SIGKILL");
        const next = await r.waitFor((e) => (e.event === "error" && e.terminal) || e.event === "serve_restarted", 60_000, from);
        if (next.event === "error") err = next;
        else victim = next.pid;
      }
      expect(err).not.toBeNull();
      err = err!;
      expect(err.code).toBe("serve_crash_loop");
      expect(err.message).toContain("last lines of its log");
      expect(await r.exited).toBe(1);
    } finally {
      await interrupt(r);
    }
  }, 300_000);

  test("Ctrl-C during an install says no serve was started, and frees the lock for the next connect at once", async () => {
    expect(cli(["remote", "serve", "stop", "box", "--accept-new"]).code).toBe(0);
    sshd.runAsUser("rm -rf ~/.reasonix/remote/bin");
    // Human mode (no --json): the closing message is what a person reads.
    const child = Bun.spawn([process.execPath, join(ROOT, "cli/main.ts"), "remote", "connect", "box"], { cwd: env.dir, env: env.env, stdout: "pipe", stderr: "pipe" });
    const lockHeld = () => sshd.runAsUser("ls ~/.reasonix/remote/serve-*.lock/holder 2>/dev/null || true").trim() !== "";
    await pollFor("the serve lock held by the connect", lockHeld, (held) => held, { timeoutMs: 60_000 });
    child.kill("SIGINT");
    const guard = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    clearTimeout(guard);
    expect(code).toBe(0);
    expect(stderr).toMatch(/no remote serve was started|nothing was started/);
    expect(stderr).not.toContain("keeps running");
    // The lock's stamp is fresh (the 60 s rule cannot apply), yet the next connect goes through.
    const r = startConnect(env);
    try {
      const ready = await r.waitFor((e) => e.event === "ready", 50_000);
      expect(ready.via).toBe("started");
    } finally {
      await interrupt(r);
    }
  }, 180_000);

  test("`serve restart` keeps the token; --new-token rotates it", () => {
    let r = cli(["remote", "serve", "start", "box", "--json"]);
    expect(r.code).toBe(0);
    const tokenFile = () => sshd.runAsUser("cat ~/.reasonix/remote/serve-*.token").trim();
    const before = tokenFile();
    const pid1 = JSON.parse(r.stdout).pid;
    r = cli(["remote", "serve", "restart", "box", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).pid).not.toBe(pid1);
    expect(tokenFile()).toBe(before);
    r = cli(["remote", "serve", "restart", "box", "--new-token"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("new token");
    expect(tokenFile()).not.toBe(before);
    expect(tokenFile()).toMatch(/^[0-9a-f]{64}$/);
  }, 180_000);

  test("a deleted workspace is named; status and stop still manage its serve", async () => {
    sshd.runAsUser("mkdir -p ~/gone");
    let r = cli(["remote", "serve", "start", "box", "--workspace", "~/gone", "--json"]);
    expect(r.code).toBe(0);
    const pid = JSON.parse(r.stdout).pid as number;
    sshd.runAsUser("rm -rf ~/gone");
    r = cli(["remote", "serve", "status", "box", "--workspace", "~/gone", "--json"]);
    expect(r.code).toBe(0);
    const st = JSON.parse(r.stdout);
    expect(st.workspace_exists).toBe(false);
    expect(st.running).toBe(true);
    expect(st.pid).toBe(pid);
    // connect must not quietly reuse a serve whose directory is gone.
    const c = startConnect(env, ["--workspace", "~/gone"]);
    try {
      const err = await c.waitFor((e) => e.event === "error" && e.terminal, 60_000);
      expect(err.code).toBe("remote_workspace_missing");
      expect(err.message).toMatch(/does not exist \(deleted\?\)/);
    } finally {
      await interrupt(c);
    }
    r = cli(["remote", "serve", "stop", "box", "--workspace", "~/gone"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`stopped remote serve ${pid}`);
  }, 180_000);
});
