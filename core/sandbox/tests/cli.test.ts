// `reasonix sandbox …` end to end through the CLI entry point.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const main = join(import.meta.dir, "..", "..", "..", "cli", "main.ts");
const home = mkdtempSync(join(tmpdir(), "rx-sbcli-home-"));
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "rx-sbcli-ws-")));
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [main, "sandbox", ...args], { cwd, env: { ...process.env, REASONIX_HOME: home, NO_COLOR: "1" }, encoding: "utf8" });

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

describe("reasonix sandbox", () => {
  test("check --json reports backend, version and whether it works", () => {
    const r = cli("check", "--json");
    const j = JSON.parse(r.stdout);
    expect(j.mode).toBe("enforce");
    expect(typeof j.available).toBe("boolean");
    if (process.platform === "linux") {
      expect(j.backend).toBe("bwrap");
      expect(r.status).toBe(j.available ? 0 : 1);
      if (!j.available) expect(j.fix).toContain('bash = "off"');
    }
  });

  test("profiles lists and --show prints the embedded text", () => {
    const list = cli("profiles");
    expect(list.stdout).toContain("linux-bwrap");
    expect(list.stdout).toContain("macos-seatbelt");
    const show = cli("profiles", "--show", "linux-bwrap");
    expect(show.stdout).toContain('network_off = ["--unshare-net", "--seccomp", "${seccomp_fd}"]');
    const bad = cli("profiles", "--show", "nope");
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("known: linux-bwrap, macos-seatbelt");
  });

  test("run passes the exit code through and needs a command", () => {
    const probe = JSON.parse(cli("check", "--json").stdout);
    if (!probe.available) {
      console.warn(`skipping sandbox run CLI case: ${probe.cause}`);
      return;
    }
    const r = cli("run", "--", "sh", "-c", "echo out; echo err >&2; exit 7");
    expect(r.status).toBe(7);
    expect(r.stdout).toBe("out\n");
    expect(r.stderr).toBe("err\n");
    const none = cli("run");
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("missing command");
  });
});
