// Network errors name what happened (issue 18, item 4): a link that is down is
// "no route to host" (Bun reports every failed connect as ECONNREFUSED; the
// routing table is asked), a closed port is "connection refused", silence is a
// timeout; and a human-mode connect prints one status line per outage, with
// the reason, instead of a line per retry.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { createNetnsLink, netnsUnavailable } from "../testing/netns.ts";
import { startRelay, type Relay } from "../testing/relay.ts";
import { buildTestBinary, type TestBuild, BUILD_HOOK_MS } from "../testing/test-build.ts";
import { freeLoopbackPort, skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { interrupt, makeLocalEnv, startConnect, type LocalEnv } from "./supervisor-support.ts";

const ROOT = resolve(import.meta.dir, "../..");
const noNetns = netnsUnavailable();
if (noNetns) console.warn(`SKIPPED no-route error test: ${noNetns}`);

async function dialError(host: string, port: number, readyTimeoutMs = 20_000): Promise<string> {
  const { connectSsh } = await import("../ssh/connect.ts");
  const { KnownHosts } = await import("../hostkeys/store.ts");
  const { nonInteractive } = await import("../ssh/prompt.ts");
  const dir = mkdtempSync(join(tmpdir(), "rx-neterr-"));
  try {
    await connectSsh(
      { label: "box", host, port, user: "nobody", identityFiles: [] },
      { knownHosts: new KnownHosts({ systemFiles: [], managedFile: join(dir, "kh") }), prompter: nonInteractive, secrets: new Map(), agentSocket: null, readyTimeoutMs, warn: () => {} },
    );
    return "connected";
  } catch (e) {
    return (e as Error).message;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("network errors name what happened", () => {
  test.skipIf(noNetns !== null)("a link that is down: no route to host, not 'refused'", async () => {
    const link = createNetnsLink();
    try {
      link.cut();
      const msg = await dialError(link.nsAddr, 22);
      expect(msg).toContain("no route to host");
      expect(msg).not.toMatch(/refused/i);
    } finally {
      link.destroy();
    }
  });

  test("nothing listening: connection refused", async () => {
    const port = await freeLoopbackPort();
    expect(await dialError("127.0.0.1", port)).toMatch(/connection refused/);
  });

  test("a server that never answers: timed out", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
    const port = (silent.address() as { port: number }).port;
    try {
      expect(await dialError("127.0.0.1", port, 1500)).toMatch(/timed out/);
    } finally {
      silent.close();
    }
  });
});

const skip = skipWithoutSshd("outage status line test");

describe.skipIf(skip)("human-mode connect: one status line per outage (real sshd)", () => {
  let sshd: SshdHandle;
  let build: TestBuild;
  let env: LocalEnv;
  let relay: Relay;

  beforeAll(async () => {
    [build, sshd] = await Promise.all([buildTestBinary(), startSshd()]);
    sshd.runAsUser("mkdir -p ~/proj");
    relay = await startRelay({ targetPort: sshd.port });
    env = makeLocalEnv(sshd, { releaseDir: build.releaseDir, workspace: "~/proj" });
    // Point "box" at the relay: the test breaks the link there.
    const cfg = join(env.env.REASONIX_HOME!, "config.toml");
    const text = (await Bun.file(cfg).text()).replace(`port = ${sshd.port}`, `port = ${relay.port}`);
    await Bun.write(cfg, text);
  }, BUILD_HOOK_MS);

  afterAll(async () => {
    await relay?.close();
    await sshd?.stop();
    env?.cleanup();
  });

  /**
   * The link goes away (existing connections reset) for `attempts` reconnect
   * attempts, counted at a stand-in on the relay's port that resets each one,
   * then comes back on the same port.
   */
  async function outage(attempts = 3): Promise<void> {
    const port = relay.port;
    await relay.close();
    relay.reset();
    let tries = 0;
    const refuser = createServer((s) => {
      tries++;
      s.resetAndDestroy();
    });
    await new Promise<void>((resolve, reject) => {
      refuser.once("error", reject);
      refuser.listen(port, "127.0.0.1", () => resolve());
    });
    try {
      await pollFor(`${attempts} reconnect attempts during the outage`, () => tries, (n) => n >= attempts, { timeoutMs: 120_000 });
    } finally {
      await new Promise((r) => refuser.close(r));
    }
    relay = await startRelay({ targetPort: sshd.port, port });
  }

  test("an outage of several retries prints one line with the reason, then 'reconnected after'", async () => {
    // First connect (installs) in JSON mode, so the human run below is a plain reuse.
    const first = startConnect(env);
    try {
      await first.waitFor((e) => e.event === "ready", 150_000);
    } finally {
      await interrupt(first);
    }
    const child = spawn(process.execPath, [join(ROOT, "cli/main.ts"), "remote", "connect", "box"], { cwd: env.dir, env: env.env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    // Each text is written once, after what causes it (the connect, then the link's return).
    const waitFor = (pred: () => boolean, what: string) => pollFor(what, pred, (ok) => ok, { timeoutMs: 60_000, show: () => `stderr:\n${err}` });
    try {
      await waitFor(() => out.includes("ready: "), "ready");
      await outage();
      await waitFor(() => /reconnected after/.test(err), "reconnected");
      const down = err.split("\n").filter((l) => l.includes("link down"));
      expect(down.length).toBe(1);
      expect(down[0]).toMatch(/reset|closed|refused/);
      expect(err).not.toMatch(/reconnecting in/);
    } finally {
      child.kill("SIGINT");
      await new Promise((r) => child.once("exit", r));
    }
  }, 240_000);

  test.skipIf(!Bun.which("script"))("on a terminal the outage line is rewritten in place, never scrolled", async () => {
    // `script` gives the CLI a pseudo-terminal; everything it shows lands in one stream.
    const cmd = `${process.execPath} ${join(ROOT, "cli/main.ts")} remote connect box --accept-new`;
    const child = spawn("script", ["-qfec", cmd, "/dev/null"], { cwd: env.dir, env: env.env, stdio: ["pipe", "pipe", "pipe"] });
    let tty = "";
    child.stdout!.on("data", (d: Buffer) => (tty += d.toString()));
    const waitFor = (pred: () => boolean, what: string) => pollFor(what, pred, (ok) => ok, { timeoutMs: 60_000, show: () => `terminal:\n${JSON.stringify(tty)}` });
    try {
      await waitFor(() => tty.includes("ready: "), "ready");
      await outage();
      await waitFor(() => /reconnected after/.test(tty), "reconnected");
      const rewrites = tty.split("\r\x1b[K").filter((seg) => seg.includes("link down"));
      expect(rewrites.length).toBeGreaterThan(1);
      // No outage line ever ends in a newline of its own: it is replaced, then cleared.
      expect(tty.split(/\r?\n/).filter((l) => l.includes("link down") && !l.includes("\r"))).toEqual([]);
    } finally {
      child.kill("SIGINT");
      await new Promise((r) => child.once("exit", r));
    }
  }, 240_000);
});
