// Configured -L and -R forwards carry bytes end to end through a real sshd,
// and a local bind conflict is a clear, terminal error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server } from "node:net";
import { buildTestBinary, type TestBuild, BUILD_HOOK_MS } from "../testing/test-build.ts";
import { freeLoopbackPort, skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { interrupt, makeLocalEnv, startConnect, type LocalEnv } from "./supervisor-support.ts";

const skip = skipWithoutSshd("remote forward tests");

/** A TCP server that answers every byte with the same byte, prefixed by a tag. */
async function echoServer(tag: string): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => {
    s.write(tag);
    s.pipe(s);
    s.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, port: (server.address() as { port: number }).port };
}

/** Send `data` to host:port and collect `expect` bytes back. */
export function roundTrip(port: number, data: Buffer, expectLen: number, host = "127.0.0.1"): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = connect({ host, port });
    const got: Buffer[] = [];
    let n = 0;
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`only ${n}/${expectLen} bytes came back`));
    }, 30_000);
    s.on("connect", () => data.length && s.write(data));
    s.on("data", (d: Buffer) => {
      got.push(d);
      n += d.length;
      if (n >= expectLen) {
        clearTimeout(timer);
        s.end();
        resolve(Buffer.concat(got));
      }
    });
    s.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    s.on("close", () => {
      clearTimeout(timer);
      if (n < expectLen) reject(new Error(`closed after ${n}/${expectLen} bytes`));
    });
  });
}

describe.skipIf(skip)("remote forwards (real sshd)", () => {
  let sshd: SshdHandle;
  let build: TestBuild;
  let env: LocalEnv;
  let remoteEcho: { server: Server; port: number };
  let localEcho: { server: Server; port: number };
  let lPort: number;
  let rPort: number;

  beforeAll(async () => {
    [build, sshd] = await Promise.all([buildTestBinary(), startSshd()]);
    sshd.runAsUser("mkdir -p ~/w");
    // sshd runs on this machine, so "a service on the remote" and "a service here" are both loopback servers.
    remoteEcho = await echoServer("R:");
    localEcho = await echoServer("L:");
    lPort = await freeLoopbackPort();
    rPort = await freeLoopbackPort();
    env = makeLocalEnv(sshd, {
      releaseDir: build.releaseDir,
      workspace: "~/w",
      extraToml: [
        "[[remote.hosts.forwards]]",
        'type = "local"',
        `bind = "127.0.0.1:${lPort}"`,
        `target = "127.0.0.1:${remoteEcho.port}"`,
        "",
        "[[remote.hosts.forwards]]",
        'type = "remote"',
        `bind = "127.0.0.1:${rPort}"`,
        `target = "127.0.0.1:${localEcho.port}"`,
      ].join("\n"),
    });
  }, BUILD_HOOK_MS);

  afterAll(async () => {
    remoteEcho?.server.close();
    localEcho?.server.close();
    await sshd?.stop();
    env?.cleanup();
  });

  test("-L and -R carry 1 MiB each way, byte for byte", async () => {
    const r = startConnect(env);
    try {
      await r.waitFor((e) => e.event === "ready", 120_000);
      const attached = r.events.filter((e) => e.event === "forward" && e.status === "attached").map((e) => e.spec);
      expect(attached).toEqual([`-L 127.0.0.1:${lPort} -> 127.0.0.1:${remoteEcho.port}`, `-R 127.0.0.1:${rPort} -> 127.0.0.1:${localEcho.port}`]);
      const data = randomBytes(1 << 20);
      const viaL = await roundTrip(lPort, data, data.length + 2);
      expect(viaL.subarray(0, 2).toString()).toBe("R:");
      expect(viaL.subarray(2).equals(data)).toBe(true);
      // -R: the remote side listens (sshd opened rPort), the bytes come back to our local echo.
      const viaR = await roundTrip(rPort, data, data.length + 2);
      expect(viaR.subarray(0, 2).toString()).toBe("L:");
      expect(viaR.subarray(2).equals(data)).toBe(true);
      // Server-speaks-first protocols (SSH banners, SMTP) work both ways too.
      expect((await roundTrip(rPort, Buffer.alloc(0), 2)).toString()).toBe("L:");
      expect((await roundTrip(lPort, Buffer.alloc(0), 2)).toString()).toBe("R:");
    } finally {
      expect(await interrupt(r)).toBe(0);
    }
    // The -L listener is gone with the supervisor.
    await expect(roundTrip(lPort, Buffer.from("x"), 3)).rejects.toThrow();
  }, 180_000);

  test("a taken -L port is a clear error and nothing is dialled", async () => {
    const blocker = createServer();
    await new Promise<void>((res) => blocker.listen(lPort, "127.0.0.1", () => res()));
    try {
      const r = startConnect(env);
      const code = await r.exited;
      expect(code).toBe(1);
      const err = r.events.find((e) => e.event === "error");
      expect(err).toMatchObject({ code: "bind_failed", terminal: true });
      expect(err!.message).toContain(`127.0.0.1:${lPort}`);
      expect(err!.message).toContain("address already in use");
      expect(r.events.some((e) => e.event === "connecting")).toBe(false);
    } finally {
      blocker.close();
    }
  }, 60_000);
});
