// `npm run bench -- peers` with peers absent or broken: each is skipped with
// its reason, and the bench still ends cleanly (exit 0).
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PEERS, peerStatus } from "../lib/peers.ts";

const root = resolve(import.meta.dir, "..", "..");
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "rx-peers-test-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("peers bench", () => {
  test("peerStatus: an absent peer is not ok, and the reason names where it was looked for", () => {
    const cache = tmp();
    for (const p of PEERS) {
      const s = peerStatus(p, cache);
      expect(s.ok).toBe(false);
      if (!s.ok) expect(s.reason).toContain(join(cache, p.bin));
    }
  });

  test("peerStatus: a peer whose --version fails is not ok, with its error", () => {
    const cache = tmp();
    const codex = PEERS.find((p) => p.name === "codex")!;
    mkdirSync(join(cache, "node_modules", ".bin"), { recursive: true });
    writeFileSync(join(cache, codex.bin), "#!/bin/sh\necho 'needs a login' >&2\nexit 1\n");
    chmodSync(join(cache, codex.bin), 0o755);
    const s = peerStatus(codex, cache);
    expect(s.ok).toBe(false);
    if (!s.ok) expect(s.reason).toContain("needs a login");
  });

  test("the bench with no peer installed (and no install) prints one SKIPPED line per peer with the reason, and exits 0", () => {
    const cache = tmp();
    const r = Bun.spawnSync([process.execPath, join(root, "scripts/bench/peers.ts"), "--cache", cache, "--no-install", "--no-reasonix"], { cwd: root, stdout: "pipe", stderr: "pipe" });
    const out = r.stdout.toString();
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
    for (const p of PEERS) expect(out).toContain(`SKIPPED ${p.name}: not installed (no ${join(cache, p.bin)}`);
    expect(out).toContain("nothing to run");
  }, 60_000);

  test("a cache folder inside the repository is refused", () => {
    const r = Bun.spawnSync([process.execPath, join(root, "scripts/bench/peers.ts"), "--cache", join(root, "peers-cache"), "--no-install", "--no-reasonix"], { cwd: root, stdout: "pipe", stderr: "pipe" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.toString()).toContain("outside the repository");
  }, 60_000);
});
