// Uploads cut short leave a `.part` on the remote for a resume. Older clients named
// it by the binary's SHA-256, today's by the local file's identity key, so a part
// from another client or another build is never resumed by this one. An upload
// removes such leftovers of ours once they are stale (untouched for an hour, no
// live writer) and leaves everything else alone. Real sshd; the upload is a small
// raw payload through the real install script.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uploadBinary } from "../bootstrap/upload.ts";
import { fileChunks } from "../bootstrap/stream-compress.ts";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { connectToHarness } from "./ssh-cli-helpers.ts";

const skip = skipWithoutSshd("stale .part clean-up tests");
const hex = (n: number) => randomBytes(n / 2).toString("hex");

describe.skipIf(skip)("stale upload leftovers on the remote (real sshd)", () => {
  let sshd: SshdHandle;
  let conn: Awaited<ReturnType<typeof connectToHarness>>;
  let dir: string;
  let writer = "";

  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), "rx-partclean-"));
    conn = await connectToHarness(sshd, join(dir, "kh"));
  });
  afterAll(async () => {
    conn?.close();
    if (writer) sshd.runAsUser(`kill ${writer} 2>/dev/null; true`);
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("an upload removes stale .part files of ours (old hash-named and other keys) and keeps fresh, written-to and foreign ones", async () => {
    const bin = join(sshd.home, ".reasonix/remote/bin");
    const old = `.reasonix-0.0.9.${hex(64)}.part`; // an older client's, named by SHA-256
    const otherKey = `.reasonix-0.1.0.${hex(32)}.part`; // another build's identity key
    const fresh = `.reasonix-0.1.0.${hex(32)}.part`; // another client's, written to a minute ago
    const live = `.reasonix-0.1.0.${hex(32)}.part`; // stale by its time, but its writer is alive
    const foreign = [".reasonix-notes.part", `.reasonix-0.1.0.${hex(32)}.partial`, `other.${hex(64)}.part`];
    // A process of the remote user standing for a writer that still appends to `live`.
    writer = sshd.runAsUser("setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!").trim();
    const stale = (n: string) => `touch -d '2 hours ago' '${bin}/${n}'`;
    sshd.runAsUser(
      [
        `mkdir -p '${bin}'`,
        ...[old, otherKey, fresh, live, ...foreign].map((n) => `head -c 1000 /dev/urandom > '${bin}/${n}'`),
        `echo abc > '${bin}/${old}.sum' && echo 123 > '${bin}/${old}.sum.4242'`,
        `echo 999999 > '${bin}/${otherKey}.pid'`, // a writer long gone
        `echo ${writer} > '${bin}/${live}.pid'`,
        ...[old, `${old}.sum`, `${old}.sum.4242`, otherKey, `${otherKey}.pid`, live, ...foreign].map(stale),
        `touch -d '1 minute ago' '${bin}/${fresh}'`,
      ].join(" && "),
    );

    // A small upload through the real install script (raw payload, a key of its own).
    const payload = randomBytes(64 << 10);
    const file = join(dir, "payload");
    writeFileSync(file, payload);
    const key = hex(32);
    const source = { codec: "raw" as const, open: () => Promise.resolve({ codec: "raw" as const, chunks: fileChunks(file), progress: (sent: number): [number, number] => [sent, payload.length] }) };
    const up = await uploadBinary(conn.client, { version: "0.1.0", size: payload.length, key }, source, { slug: "partclean", lockId: "test-lock" });
    expect(up.bytesSent).toBe(payload.length);

    const left = sshd.runAsUser(`ls -a '${bin}'`).split("\n").filter((n) => n.startsWith(".reasonix-") || n.startsWith("other."));
    // Stale leftovers of ours went, with their companions.
    for (const n of [old, `${old}.sum`, `${old}.sum.4242`, otherKey, `${otherKey}.pid`]) expect(left).not.toContain(n);
    // A fresh one, one with a live writer, and names that are not ours stay; so does this upload's.
    for (const n of [fresh, live, `${live}.pid`, ...foreign]) expect(left).toContain(n);
    expect(readFileSync(join(bin, `.reasonix-0.1.0.${key}.part`)).equals(payload)).toBe(true);
  }, 120_000);
});
