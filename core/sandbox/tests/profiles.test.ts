import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sandboxProfileAssets } from "../../assets/index.ts";
import { createPathPolicy, type PathPolicy } from "../../policy/paths.ts";
import { childEnv, savedCredentialNames } from "../env.ts";
import { createSessionTmpDir, removeSessionTmpDir, runShell, wrapCommand } from "../index.ts";
import { probeBwrap } from "../probe.ts";
import { getProfile, listProfiles, loadBwrapProfile, renderBwrapArgs, renderSeatbelt } from "../profiles.ts";

let base: string;
let ws: string;
let home: string;
let policy: PathPolicy;
let sessionTmp: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "rx-sbprof-")));
  ws = join(base, "ws");
  home = join(base, "home");
  mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
  writeFileSync(join(ws, ".git", "config"), "[core]\n");
  mkdirSync(home);
  writeFileSync(join(base, "secret.txt"), "s");
  policy = createPathPolicy({ cwd: ws, reasonixHome: home, config: { forbid_read: [join(base, "secret.txt"), join(base, `it's "odd") (allow default`)] } });
  sessionTmp = createSessionTmpDir();
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  removeSessionTmpDir(sessionTmp);
});

describe("embedded profiles", () => {
  test("both profiles are embedded and listed", () => {
    expect(listProfiles().map((p) => p.name)).toEqual(["linux-bwrap", "macos-seatbelt"]);
    expect(sandboxProfileAssets.files["linux/bwrap.toml"]).toBe(getProfile("linux-bwrap").text);
    expect(() => getProfile("nope")).toThrow(/no embedded sandbox profile/);
  });

  test("the Linux profile declares the mounts in order", () => {
    const args = renderBwrapArgs(loadBwrapProfile(), {
      asRoot: true,
      network: false,
      scalars: { session_tmp: "/S", cwd: "/W", seccomp_fd: "3" },
      lists: { read_roots: ["/tmp/srv"], write_roots: ["/W", "/A"], session_tmp_parents: [], run_keep: ["/run/resolvconf/resolv.conf"], keep_ancestors: ["/W/.git"], protected: ["/W/.git/hooks"], forbid_dirs: ["/F"], forbid_files: ["/f"], ssh_agent: [], shared_tmp: [] },
    });
    const s = args.join(" ");
    expect(s).toStartWith("--new-session --die-with-parent");
    expect(args).toContain("--unshare-pid");
    expect(s).toContain("--cap-drop ALL --unshare-net --seccomp 3 --ro-bind / / --dev /dev --proc /proc --tmpfs /run");
    expect(s).toContain("--ro-bind /run/resolvconf/resolv.conf /run/resolvconf/resolv.conf --bind /S /tmp --ro-bind /tmp/srv /tmp/srv --bind /W /W --bind /A /A --bind /W/.git /W/.git --ro-bind /W/.git/hooks /W/.git/hooks --tmpfs /F --remount-ro /F --ro-bind /dev/null /f --chdir /W");
    const on = renderBwrapArgs(loadBwrapProfile(), { asRoot: false, network: true, scalars: { session_tmp: "/S", cwd: "/W", seccomp_fd: "3" }, lists: { read_roots: [], write_roots: [], session_tmp_parents: [], run_keep: [], keep_ancestors: [], protected: [], forbid_dirs: [], forbid_files: [], ssh_agent: [], shared_tmp: [] } });
    expect(on).toContain("--share-net");
    expect(on).not.toContain("--unshare-net");
    expect(on).not.toContain("--seccomp");
    expect(on).not.toContain("--cap-drop");
  });

  test("a path with spaces or leading dashes stays one argv entry", () => {
    const args = renderBwrapArgs(loadBwrapProfile(), {
      asRoot: false,
      network: false,
      scalars: { session_tmp: "/S", cwd: "/W", seccomp_fd: "3" },
      lists: { read_roots: [], write_roots: ["/a b/--ro-bind x"], session_tmp_parents: [], run_keep: [], keep_ancestors: [], protected: [], forbid_dirs: [], forbid_files: [], ssh_agent: [], shared_tmp: [] },
    });
    const i = args.indexOf("/a b/--ro-bind x");
    expect(args[i - 1]).toBe("--bind");
    expect(args[i + 1]).toBe("/a b/--ro-bind x");
  });

  test("a profile naming a parameter the code does not supply is an error", () => {
    const bad = loadBwrapProfile('process = []\n[[mount]]\nargs = ["--bind", "${nope}", "/x"]\n');
    expect(() => renderBwrapArgs(bad, { asRoot: false, network: false, scalars: {}, lists: {} })).toThrow(/nope/);
  });
});

describe("Seatbelt rendering (macOS execution is not tested here: no mac in CI)", () => {
  test("paths travel only as -D parameters, never in the policy text", async () => {
    const w = await wrapCommand(["/bin/echo", "hi"], { policy, mode: "enforce", network: false, sessionTmpDir: sessionTmp, platform: "darwin" });
    // No mac here: the probe for darwin finds no /usr/bin/sandbox-exec, so render directly.
    expect(w.ok).toBe(false);
    const { profile, defines } = renderSeatbelt(getProfile("macos-seatbelt").text, {
      scalars: { NETWORK: "0", SESSION_TMP: sessionTmp, SESSION_TMP_PARENT: join(sessionTmp, "..") },
      lists: { WRITE_ROOT: policy.writeRoots, FORBID_READ: policy.forbidRead, PROTECTED: policy.protectedPaths.map((p) => p.path), PROTECTED_ANCESTOR: [join(ws, ".git")] },
    });
    expect(profile).not.toContain(base);
    expect(profile).not.toContain("odd");
    expect(profile).toContain('(allow file-write* (subpath (param "WRITE_ROOT_0")))');
    expect(profile).toContain('(deny file-read* (subpath (param "FORBID_READ_0")))');
    expect(profile).toContain('(deny file-read* (subpath (param "FORBID_READ_2")))');
    expect(profile).toContain('(deny file-write* (subpath (param "PROTECTED_4")))');
    expect(profile).toContain('(deny file-write-unlink (literal (param "PROTECTED_ANCESTOR_0")))');
    expect(profile).not.toMatch(/\)\s*;; @each/);
    expect(profile).toContain('(if (string=? (param "NETWORK") "1")');
    const d = Object.fromEntries(defines);
    expect(d.FORBID_READ_0).toBe(home);
    expect(d.FORBID_READ_2).toBe(join(base, `it's "odd") (allow default`));
    expect(d.WRITE_ROOT_0).toBe(ws);
    expect(d.NETWORK).toBe("0");
    // Later Seatbelt rules win: the own session dir is re-allowed after its parent is denied.
    expect(profile.indexOf('(deny file-read* (subpath (param "SESSION_TMP_PARENT")))')).toBeLessThan(profile.indexOf('(allow file-read* (subpath (param "SESSION_TMP")))'));
    expect(d.PROTECTED_0).toBe(join(ws, ".git", "hooks"));
  });

  test("an empty list drops its rule instead of denying everything", () => {
    const { profile } = renderSeatbelt(getProfile("macos-seatbelt").text, {
      scalars: { NETWORK: "1", SESSION_TMP: "/s" },
      lists: { WRITE_ROOT: ["/w"], FORBID_READ: [], PROTECTED: [], PROTECTED_ANCESTOR: [] },
    });
    expect(profile).not.toContain('(param "FORBID_READ');
    expect(profile).not.toMatch(/\(deny file-read\*\s*\)/);
  });
});

describe("child environment", () => {
  test("credentials are removed, the allowlist and passed-through names are kept", () => {
    const env = childEnv(
      { PATH: "/bin", HOME: "/h", OPENAI_API_KEY: "k", GITHUB_TOKEN: "t", DB_PASSWORD: "p", WEIRD_NAME: "x", REASONIX_HOME: "/r", TOKENIZERS_PARALLELISM: "1", OTHER: "o" },
      // Reasonix's own keys and control variables stay out even when passed through.
      { strip: ["WEIRD_NAME"], passthrough: ["TOKENIZERS_PARALLELISM", "WEIRD_NAME", "OPENAI_API_KEY", "REASONIX_HOME"], set: { TMPDIR: "/tmp" } },
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", TOKENIZERS_PARALLELISM: "1", TMPDIR: "/tmp" });
  });

  test("saved credential names come from .env keys and *_env config fields", () => {
    const dotenv = join(base, "creds.env");
    writeFileSync(dotenv, "CUSTOM_PROVIDER_KEY=abc\n", { mode: 0o600 });
    const names = savedCredentialNames({ providers: [{ name: "x", api_key_env: "ODD_VAR" }], remote: { hosts: [{ password_env: "PW_VAR" }] } }, dotenv);
    expect(names.sort()).toEqual(["CUSTOM_PROVIDER_KEY", "ODD_VAR", "PW_VAR"]);
  });
});

describe("modes and refusals", () => {
  test("Windows: enforce refuses with cause and fix; off runs unconfined", async () => {
    const w = await wrapCommand(["x"], { policy, mode: "enforce", network: false, sessionTmpDir: sessionTmp, platform: "win32" });
    expect(w.ok).toBe(false);
    if (!w.ok) {
      expect(w.refusal.code).toBe("unsupported-platform");
      expect(w.refusal.message).toContain("Windows");
      expect(w.refusal.fix).toContain('bash = "off"');
    }
    const off = await wrapCommand(["x"], { policy, mode: "off", network: false, sessionTmpDir: sessionTmp, platform: "win32" });
    expect(off.ok && off.backend).toBe("unconfined");
  });

  test("missing bwrap: refusal names the package to install", async () => {
    const s = await probeBwrap(null);
    expect(s).toMatchObject({ available: false, code: "bwrap-missing" });
    expect(s.fix).toContain("apt install bubblewrap");
    expect(s.fix).toContain('bash = "off"');
  });

  test("blocked user namespaces are recognised from bwrap's own error", async () => {
    // Stand-in for a kernel with AppArmor's userns restriction, which this
    // machine cannot be switched to without affecting everything else on it.
    const fake = join(base, "bwrap-blocked");
    writeFileSync(fake, '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.9.0"; exit 0; }\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    const s = await probeBwrap(fake);
    expect(s).toMatchObject({ available: false, code: "userns-blocked", version: "0.9.0" });
    expect(s.fix).toContain("apparmor_restrict_unprivileged_userns");
  });

  test("a bwrap that cannot be executed is a refusal, not a crash", async () => {
    const fake = join(base, "bwrap-noexec");
    writeFileSync(fake, "#!/bin/sh\nexit 0\n");
    chmodSync(fake, 0o644);
    const s = await probeBwrap(fake);
    expect(s).toMatchObject({ available: false, code: "bwrap-failed" });
    expect(s.cause).toContain(`cannot execute ${fake}`);
  });

  test("off mode runs unconfined, still strips credentials and sets TMPDIR", async () => {
    const r = await runShell(`echo "$TMPDIR"; echo "k=$OPENAI_API_KEY"; touch '${join(base, "unconfined.txt")}' && echo wrote`, {
      policy,
      mode: "off",
      network: false,
      sessionTmpDir: sessionTmp,
      env: { ...process.env, OPENAI_API_KEY: "sk-live" },
    });
    expect(r.ok && r.backend).toBe("unconfined");
    if (r.ok) expect(r.output).toBe(`${sessionTmp}\nk=\nwrote\n`);
  });

  test("timeout and abort kill the command (both modes)", async () => {
    for (const mode of ["off", "enforce"] as const) {
      const t = await runShell("sleep 30", { policy, mode, network: false, sessionTmpDir: sessionTmp, timeoutMs: 300 });
      if (!t.ok) {
        console.warn(`skipping ${mode} timeout case: ${t.refusal.message}`);
        continue;
      }
      expect(t.timedOut).toBe(true);
      expect(t.durationMs).toBeLessThan(10_000);
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      const a = await runShell("sleep 30", { policy, mode, network: false, sessionTmpDir: sessionTmp, signal: ac.signal });
      expect(a.ok && a.aborted).toBe(true);
    }
  });

  test("unconfined: a background child holding the pipe does not hang the call", async () => {
    const r = await runShell("sleep 5 & echo fast", { policy, mode: "off", network: false, sessionTmpDir: sessionTmp, timeoutMs: 20_000 });
    expect(r.ok && r.output).toBe("fast\n");
    expect(r.ok && r.durationMs).toBeLessThan(4000);
  });

  test("output is capped and flagged as truncated", async () => {
    const r = await runShell("head -c 5000 /dev/zero | tr '\\0' a", { policy, mode: "off", network: false, sessionTmpDir: sessionTmp, maxOutputBytes: 100 });
    expect(r.ok && r.output.length).toBe(100);
    expect(r.ok && r.truncated).toBe(true);
  });
});
