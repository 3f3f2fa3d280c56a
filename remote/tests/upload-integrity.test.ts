// An upload is sent before this machine has finished hashing the binary (issue 34
// item 8: the hash overlaps the upload), so the check moved to the fenced start:
// the remote hashes what it received, and the start script puts the `.part` in
// place only when that hash is the client's. Bytes that are not the binary's
// (here: an altered `.part` the upload resumes from) are refused before anything
// is made executable or run, the leftovers are removed, and the next connect
// installs the binary anew. Real sshd, compiled binary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { identityKey } from "../bootstrap/artifact.ts";
import { buildTestBinary, type TestBuild, BUILD_HOOK_MS } from "../testing/test-build.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { connectToHarness } from "./ssh-cli-helpers.ts";

const skip = skipWithoutSshd("upload integrity tests");
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe.skipIf(skip)("an upload whose bytes were altered (real sshd)", () => {
  let build: TestBuild;
  let sshd: SshdHandle;
  let conn: Awaited<ReturnType<typeof connectToHarness>>;
  let dir: string;

  beforeAll(async () => {
    [build, sshd] = await Promise.all([buildTestBinary(), startSshd()]);
    sshd.runAsUser("mkdir -p ~/ws");
    dir = mkdtempSync(join(tmpdir(), "rx-integrity-"));
    conn = await connectToHarness(sshd, join(dir, "kh"));
  }, BUILD_HOOK_MS);
  afterAll(async () => {
    conn?.close();
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("is refused before it is put in place or run; nothing is left behind and the next connect installs it", async () => {
    const { ensureServe, stopServe, readRemoteState } = await import("../bootstrap/bootstrap.ts");
    const bin = join(sshd.home, ".reasonix/remote/bin");
    const part = join(bin, `.reasonix-${build.version}.${identityKey(build.binary)}.part`);
    // 1 MiB that is not the binary's first MiB, where an upload cut short would have left its bytes.
    sshd.runAsUser(`mkdir -p '${bin}' && head -c 1048576 /dev/urandom > '${part}'`);
    const events: { event: string; resumed_from?: number }[] = [];
    const err = await ensureServe(conn.client, { workspace: "~/ws", binaryPath: build.binary, cacheDir: join(dir, "c1"), onEvent: (e) => events.push(e as never) }).catch((e) => e);
    // The upload did resume from the altered bytes, and went through to the end.
    expect(events.find((e) => e.event === "installed")?.resumed_from).toBe(1048576);
    expect(err.code).toBe("install_failed");
    expect(err.message).toContain("checksum mismatch");
    expect(err.message).toContain("never run");
    // Never in place, never started: no binary, no serve recorded, no serve log, no leftovers.
    expect(existsSync(join(bin, `reasonix-${build.version}`))).toBe(false);
    const s = await readRemoteState(conn.client, "~/ws", build.version);
    expect(s.pid).toBeUndefined();
    expect(existsSync(join(sshd.home, `.reasonix/remote/serve-${s.slug}.log`))).toBe(false);
    expect(sshd.runAsUser(`ls -a '${bin}'`).split("\n").filter((n) => n.includes(".part"))).toEqual([]);
    expect(sshd.runAsUser("ls -d ~/.reasonix/remote/*.lock 2>/dev/null || true").trim()).toBe("");

    // The next connect starts from zero and installs the very binary.
    const events2: { event: string; resumed_from?: number }[] = [];
    const info = await ensureServe(conn.client, { workspace: "~/ws", binaryPath: build.binary, cacheDir: join(dir, "c2"), onEvent: (e) => events2.push(e as never) });
    expect(events2.find((e) => e.event === "installed")?.resumed_from).toBeUndefined();
    expect(sha(readFileSync(join(bin, `reasonix-${build.version}`)))).toBe(sha(readFileSync(build.binary)));
    await stopServe(conn.client, info.slug, info.pid);
  }, 240_000);
});
