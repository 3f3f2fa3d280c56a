// Reconnect after a REAL link cut: sshd runs inside a network namespace joined
// to us by a veth pair; the test takes the link down for a few seconds and
// checks that the supervisor notices (keepalive), reconnects with backoff,
// re-attaches the tunnel and forwards, and the remote serve pid is unchanged.
// With usage counters on (issue 31), the reconnect is counted as
// recovery.resume under surface "remote" and sent when `remote connect` ends.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, createServer, type Server } from "node:net";
import { buildTestBinary, type TestBuild, BUILD_HOOK_MS } from "../testing/test-build.ts";
import { createNetnsLink, netnsUnavailable, type NetnsLink } from "../testing/netns.ts";
import { freeLoopbackPort, skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { httpGet, interrupt, makeLocalEnv, startConnect, type LocalEnv } from "./supervisor-support.ts";
import { saveChoice } from "../../core/telemetry/store.ts";
import { validatePayload } from "../../core/telemetry/schema.ts";

const noNetns = netnsUnavailable();
if (noNetns) console.warn(`SKIPPED reconnect link-cut test: ${noNetns}`);
const skip = skipWithoutSshd("reconnect link-cut test") || noNetns !== null;

/** Read the first bytes a TCP server sends (the SSH banner for sshd). */
function banner(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port });
    const t = setTimeout(() => {
      s.destroy();
      reject(new Error("no banner"));
    }, 10_000);
    s.once("data", (d: Buffer) => {
      clearTimeout(t);
      s.destroy();
      resolve(d.toString());
    });
    s.once("error", (e) => {
      clearTimeout(t);
      reject(e);
    });
    s.once("close", () => {
      clearTimeout(t);
      reject(new Error("closed"));
    });
  });
}

/**
 * From inside the namespace, connect to 127.0.0.1:port there and read what comes back.
 * Async on purpose: the server answering lives in this very process.
 */
async function readInsideNs(ns: string, port: number): Promise<string> {
  const js = `const s=require("net").connect(${port},"127.0.0.1");s.on("data",d=>process.stdout.write(d,()=>process.exit(0)));s.on("error",e=>{console.error(e.message);process.exit(2)});setTimeout(()=>process.exit(3),5000)`;
  const p = Bun.spawn(["ip", "netns", "exec", ns, process.execPath, "-e", js], { stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  if (code !== 0) throw new Error(`reading 127.0.0.1:${port} inside ${ns} failed (exit ${code})`);
  return out;
}

describe.skipIf(skip)("reconnect after a real link cut (netns + veth)", () => {
  let link: NetnsLink;
  let sshd: SshdHandle;
  let build: TestBuild;
  let env: LocalEnv;
  let hello: Server;
  let lPort: number;
  let collector: ReturnType<typeof Bun.serve>;
  const pings: string[] = [];
  const rPort = 40000 + Math.floor(Math.random() * 20000); // inside our own fresh namespace: nothing else binds there

  beforeAll(async () => {
    build = await buildTestBinary();
    link = createNetnsLink();
    // Like most servers, drop dead clients (and release their -R ports) within seconds.
    sshd = await startSshd({ netns: link.ns, listenAddress: link.nsAddr, extraConfig: ["ClientAliveInterval 1", "ClientAliveCountMax 2"] });
    sshd.runAsUser("mkdir -p ~/ws");
    hello = createServer((s) => s.end("hello from the local side\n"));
    await new Promise<void>((r) => hello.listen(0, "127.0.0.1", () => r()));
    lPort = await freeLoopbackPort();
    // A loopback collector for the usage counters (mode on, a yes saved below).
    collector = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (req) => (pings.push(await req.text()), new Response(null, { status: 204 })) });
    env = makeLocalEnv(sshd, {
      releaseDir: build.releaseDir,
      workspace: "~/ws",
      host: link.nsAddr,
      keepaliveMs: 1000,
      extraToml: [
        "[[remote.hosts.forwards]]",
        'type = "local"',
        `bind = "127.0.0.1:${lPort}"`,
        `target = "${link.nsAddr}:${sshd.port}"`,
        "",
        "[[remote.hosts.forwards]]",
        'type = "remote"',
        `bind = "127.0.0.1:${rPort}"`,
        `target = "127.0.0.1:${(hello.address() as { port: number }).port}"`,
        "",
        "[telemetry]",
        'mode = "on"',
        `endpoint = "http://127.0.0.1:${collector.port}/v1/counters"`,
      ].join("\n"),
    });
    saveChoice(env.env.REASONIX_HOME!, "yes");
    // Collecting at all from a source build (core/telemetry/mode.ts devBuild).
    env.env.REASONIX_TEST_TELEMETRY = "1";
  }, BUILD_HOOK_MS);

  afterAll(async () => {
    hello?.close();
    collector?.stop(true);
    await sshd?.stop();
    link?.destroy();
    env?.cleanup();
  });

  test("the link goes down for seconds; the tunnel serves again with the same serve pid", async () => {
    const r = startConnect(env);
    try {
      const ready = await r.waitFor((e) => e.event === "ready", 120_000);
      const pid = ready.pid;
      expect((await httpGet(ready.local_port, "/healthz")).status).toBe(200);
      expect(await banner(lPort)).toStartWith("SSH-2.0-");
      expect(await readInsideNs(link.ns, rPort)).toBe("hello from the local side\n");

      const mark = r.events.length;
      link.cut();
      let restored = 0;
      try {
        const gone = await r.waitFor((e) => e.event === "disconnected", 30_000, mark);
        expect(gone.reason).toBeString();
        // During the outage the local listeners stay bound and answer at once: the tunnel
        // with a 503 page that says the link is down (issue 34), a -L forward by closing.
        const t0 = Date.now();
        const down = await httpGet(ready.local_port, "/healthz");
        expect(down.status).toBe(503);
        expect(down.body).toContain("link to box is down");
        await expect(banner(lPort)).rejects.toThrow();
        expect(Date.now() - t0).toBeLessThan(5_000);
        await Bun.sleep(3_000);
      } finally {
        link.restore();
        restored = Date.now();
      }
      const again = await r.waitFor((e) => e.event === "ready" && e.reconnect === true, 60_000, mark);
      const back = Date.now() - restored;
      console.log(`tunnel serving again ${back} ms after the link came back`);
      const reconnecting = r.events.slice(mark).filter((e) => e.event === "reconnecting");
      expect(reconnecting.length).toBeGreaterThan(0);
      for (const e of reconnecting) {
        expect(e.delay_ms).toBeGreaterThanOrEqual(0);
        expect(e.delay_ms).toBeLessThanOrEqual(30_000);
        expect(e.attempt).toBeGreaterThan(0);
      }
      expect(again.pid).toBe(pid);
      expect(again.local_port).toBe(ready.local_port);
      expect(again.reused).toBe(true);
      const h = await httpGet(ready.local_port, "/healthz");
      expect(h.status).toBe(200);
      expect(await banner(lPort)).toStartWith("SSH-2.0-");
      // -R is registered again on the new connection (possibly after the stale session let go).
      await r.waitFor((e) => e.event === "forward" && e.status === "attached" && e.spec.startsWith("-R"), 30_000, mark);
      expect(await readInsideNs(link.ns, rPort)).toBe("hello from the local side\n");
      // The remote serve never restarted.
      expect(sshd.runAsUser("cat ~/.reasonix/remote/serve-*.pid").trim()).toBe(String(pid));
    } finally {
      expect(await interrupt(r)).toBe(0);
    }
    // The ping went out before the process ended: one record, surface remote, the reconnect counted.
    expect(pings).toHaveLength(1);
    const payloads = JSON.parse(pings[0]!) as Record<string, any>[];
    for (const p of payloads) expect(validatePayload(p)).toEqual([]);
    expect(payloads).toHaveLength(1);
    const reconnects = r.events.filter((e) => e.event === "ready" && e.reconnect === true).length;
    expect(reconnects).toBeGreaterThan(0);
    expect(payloads[0]).toMatchObject({ surface: "remote", counters: { recovery: { resume: reconnects } } });
    expect(pings[0]).not.toContain(link.nsAddr);
  }, 180_000);
});
