// The remote serve lock is tied to its holder's SSH session (issue 18, item 3):
// a waiter sees the holder's progress as `waiting_for_lock` events, and a holder
// that disappears (its connection closed: Ctrl-C, a killed client) frees the lock
// at once, not after the 60 s staleness rule.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { skipWithoutSshd, startSshd, type SshdHandle } from "../testing/sshd-harness.ts";
import { connectToHarness } from "./ssh-cli-helpers.ts";
import { pollFor } from "../../core/testing/fresh-wait.ts";

const skip = skipWithoutSshd("remote lock holder tests");

describe.skipIf(skip)("remote serve lock tied to the holder's session (real sshd)", () => {
  let sshd: SshdHandle;
  let dir: string;

  beforeAll(async () => {
    sshd = await startSshd();
    sshd.runAsUser("mkdir -p ~/ws");
    dir = mkdtempSync(join(tmpdir(), "rx-lockholder-"));
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a waiter sees the holder's progress, and gets the lock as soon as the holder's connection closes", async () => {
    const { readRemoteState, holdLock } = await import("../bootstrap/bootstrap.ts");
    const a = await connectToHarness(sshd, join(dir, "kh"));
    const b = await connectToHarness(sshd, join(dir, "kh"));
    try {
      const s = await readRemoteState(a.client, "~/ws", "1.0.0", "holder-a");
      expect(s.locked).toBe(true);
      const held = await holdLock(a.client, s.slug, "holder-a");
      held.progress("upload 5 10");
      const L = join(sshd.home, ".reasonix/remote", `serve-${s.slug}.lock`);
      // Push the stamp an hour ahead: the 60 s staleness rule can never free this lock,
      // so only the holder's death can.
      const progress = () => {
        try {
          return readFileSync(join(L, "progress"), "utf8");
        } catch {
          return "";
        }
      };
      await pollFor("the holder's progress written", progress, (p) => p.includes("upload"));
      writeFileSync(join(L, "stamp"), `${Math.floor(Date.now() / 1000) + 3600}\n`);
      const events: Record<string, unknown>[] = [];
      const waiter = readRemoteState(b.client, "~/ws", "1.0.0", "waiter-b", { onEvent: (e) => events.push(e as unknown as Record<string, unknown>) });
      await pollFor("the waiter's first event", () => events.length, (n) => n > 0);
      expect(events[0]).toMatchObject({ event: "waiting_for_lock", holder: "holder-a", phase: "upload", done: 5, total: 10 });
      // The holder goes away without releasing (what Ctrl-C or a killed client does).
      a.close();
      const got = await waiter;
      expect(got.locked).toBe(true);
    } finally {
      a.close();
      b.close();
    }
  }, 60_000);
});
