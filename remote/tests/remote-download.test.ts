// Cold start source (a) (issue 18, item 6): when the remote can reach the
// release URL, it downloads the artifact itself, checked against the SHA-256
// the local side read from SHA256SUMS; when it cannot, the install falls back
// to an upload. sshd runs in a network namespace; the "release site" is an HTTP
// mirror inside that namespace (reachable from the remote only), named by
// $REASONIX_DOWNLOAD_URL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { createNetnsLink, netnsUnavailable, type NetnsLink } from "../testing/netns.ts";
import { buildTestBinary, type TestBuild, BUILD_HOOK_MS } from "../testing/test-build.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { connectToHarness } from "./ssh-cli-helpers.ts";

const noNetns = netnsUnavailable();
if (noNetns) console.warn(`SKIPPED remote download test: ${noNetns}`);
const noCurl = !Bun.which("curl") && !Bun.which("wget");
if (noCurl) console.warn("SKIPPED remote download test: neither curl nor wget installed (apt-get install curl)");
const skip = skipWithoutSshd("remote download test") || noNetns !== null || noCurl;

describe.skipIf(skip)("the remote downloads the release itself (netns, HTTP mirror inside it)", () => {
  let link: NetnsLink;
  let sshd: SshdHandle;
  let build: TestBuild;
  let dir: string;
  let rel: string;
  let zst: Buffer;
  const mirrorPort = 40000 + Math.floor(Math.random() * 20000); // inside our own fresh namespace
  let mirror: ReturnType<typeof Bun.spawn> | null = null;
  const saved = { url: process.env.REASONIX_DOWNLOAD_URL, dir: process.env.REASONIX_RELEASE_DIR };

  beforeAll(async () => {
    link = createNetnsLink();
    [build, sshd] = await Promise.all([buildTestBinary(), startSshd({ netns: link.ns, listenAddress: link.nsAddr })]);
    sshd.runAsUser("mkdir -p ~/ws");
    dir = mkdtempSync(join(tmpdir(), "rx-rdl-"));
    rel = join(dir, "release");
    mkdirSync(rel);
    const name = `reasonix-${build.platform}`;
    const zlib = (await import("node:zlib")) as unknown as { zstdCompressSync(b: Uint8Array, o: { params: Record<number, number> }): Buffer; constants: Record<string, number> };
    zst = zlib.zstdCompressSync(readFileSync(build.binary), { params: { [zlib.constants.ZSTD_c_compressionLevel!]: 3, [zlib.constants.ZSTD_c_checksumFlag!]: 1 } });
    writeFileSync(join(rel, `${name}.zst`), zst);
    writeFileSync(join(rel, "SHA256SUMS"), `${createHash("sha256").update(zst).digest("hex")}  ${name}.zst\n`);
  }, BUILD_HOOK_MS);

  afterAll(async () => {
    mirror?.kill();
    process.env.REASONIX_DOWNLOAD_URL = saved.url;
    process.env.REASONIX_RELEASE_DIR = saved.dir;
    if (saved.url === undefined) delete process.env.REASONIX_DOWNLOAD_URL;
    if (saved.dir === undefined) delete process.env.REASONIX_RELEASE_DIR;
    await sshd?.stop();
    link?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const install = async () => {
    const { ensureServe, stopServe } = await import("../bootstrap/bootstrap.ts");
    sshd.runAsUser("rm -rf ~/.reasonix/remote/bin");
    process.env.REASONIX_DOWNLOAD_URL = `http://127.0.0.1:${mirrorPort}`;
    process.env.REASONIX_RELEASE_DIR = rel;
    const conn = await connectToHarness(sshd, join(dir, "kh"));
    const events: Record<string, any>[] = [];
    try {
      const info = await ensureServe(conn.client, { workspace: "~/ws", version: build.version, cacheDir: join(dir, `cache-${events.length}-${Date.now()}`), restart: true, onEvent: (e) => events.push(e) });
      await stopServe(conn.client, info.slug, info.pid);
    } finally {
      conn.close();
    }
    return events;
  };

  test("with the mirror reachable from the remote: downloaded there, nothing uploaded", async () => {
    const serveDir = `const d=${JSON.stringify(rel)};Bun.serve({hostname:"127.0.0.1",port:${mirrorPort},fetch(r){const f=Bun.file(d+new URL(r.url).pathname);return f.size?new Response(f):new Response("no",{status:404})}});`;
    mirror = Bun.spawn(["ip", "netns", "exec", link.ns, process.execPath, "-e", serveDir], { stdout: "ignore", stderr: "ignore" });
    // Until the mirror answers inside the namespace (a fixed 1.5 s was a bet: a late mirror means a fallback upload).
    const sums = `http://127.0.0.1:${mirrorPort}/SHA256SUMS`;
    const get = Bun.which("curl") ? ["curl", "-sf", "-o", "/dev/null", sums] : ["wget", "-q", "-O", "/dev/null", sums];
    await pollFor("the mirror answering inside the namespace", () => Bun.spawnSync(["ip", "netns", "exec", link.ns, ...get]).exitCode, (code) => code === 0, { timeoutMs: 60_000, everyMs: 200 });
    const events = await install();
    expect(events.find((e) => e.event === "install_source")).toMatchObject({ source: "remote_download", codec: "zstd" });
    expect(events.some((e) => e.event === "install_fallback")).toBe(false);
    expect(events.find((e) => e.event === "installed")).toMatchObject({ bytes: 0, binary_size: zst.length });
    expect(events.some((e) => e.event === "installing" && e.phase === "upload")).toBe(false);
    expect(existsSync(join(sshd.home, ".reasonix/remote/bin", `reasonix-${build.version}`))).toBe(true);
  }, 180_000);

  test("with the mirror gone: the remote's failure is reported and the binary is uploaded instead", async () => {
    mirror?.kill();
    await mirror?.exited;
    mirror = null;
    const events = await install();
    const fb = events.find((e) => e.event === "install_fallback");
    expect(fb?.from).toBe("remote_download");
    expect(fb?.reason).toMatch(/download failed/);
    const sources = events.filter((e) => e.event === "install_source").map((e) => e.source);
    expect(sources[0]).toBe("remote_download");
    expect(sources[1]).toBe("cached"); // the release's .zst, adopted locally
    expect(events.find((e) => e.event === "installed")!.bytes).toBe(zst.length);
  }, 180_000);
});
