// End to end: the real install.sh under dash, against a local HTTP server on
// 127.0.0.1 serving a dist/ built in this test, in a throw-away HOME.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, chmodSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtDist, type BuiltDist } from "../../scripts/lib/built-dist.ts";
import { version } from "../../package.json";

const script = join(import.meta.dir, "..", "install.sh");
const shell = Bun.which("dash") ?? "/bin/sh";

let dist: BuiltDist;
let server: ReturnType<typeof Bun.serve>;
/** Per-request overrides: path → body or status. */
const overrides = new Map<string, string | number>();

beforeAll(async () => {
  dist = await builtDist();
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const name = new URL(req.url).pathname.split("/").pop()!;
      const o = overrides.get(name);
      if (typeof o === "number") return new Response("nope", { status: o });
      if (typeof o === "string") return new Response(o);
      const file = join(dist.dir, name);
      return existsSync(file) && !name.includes("..") ? new Response(Bun.file(file)) : new Response("not found", { status: 404 });
    },
  });
}, 180_000);

afterAll(() => server?.stop(true));

// Async spawn: the HTTP server lives in this process, so a sync spawn would deadlock.
async function run(home: string, args: string[] = [], env: Record<string, string> = {}) {
  const r = Bun.spawn([shell, script, ...args], {
    env: {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: home,
      SHELL: "/bin/bash",
      REASONIX_DOWNLOAD_URL: `http://127.0.0.1:${server.port}/`,
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(r.stdout).text(), new Response(r.stderr).text(), r.exited]);
  return { code, out, err };
}

const newHome = () => mkdtempSync(join(tmpdir(), "rx-install-home-"));

describe("install.sh", () => {
  test("installs, verifies, puts itself on PATH once, and re-runs idempotently", async () => {
    overrides.clear();
    const home = newHome();
    const first = await run(home);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    const bin = join(home, ".reasonix", "bin", "reasonix");
    const v = Bun.spawnSync([bin, "--version"]).stdout.toString().trim();
    expect(v).toBe(`reasonix ${version}`);
    const rc = readFileSync(join(home, ".bashrc"), "utf8");
    expect(rc).toContain(`export PATH="${join(home, ".reasonix", "bin")}:$PATH"`);

    const second = await run(home);
    expect(second.code).toBe(0);
    const rc2 = readFileSync(join(home, ".bashrc"), "utf8");
    expect(rc2.split("added by the reasonix installer").length - 1).toBe(1);
    // No staging files left behind.
    expect(readdirSync(join(home, ".reasonix", "bin"))).toEqual(["reasonix"]);
  });

  test("--no-modify-path and REASONIX_INSTALL_DIR", async () => {
    overrides.clear();
    const home = newHome();
    const dir = join(home, "opt bin");
    const r = await run(home, ["--no-modify-path"], { REASONIX_INSTALL_DIR: dir });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, "reasonix"))).toBe(true);
    expect(existsSync(join(home, ".bashrc"))).toBe(false);
    expect(r.out).toContain("add it to your PATH");
  });

  test("checksum mismatch: non-zero exit, clear message, nothing installed, old binary kept", async () => {
    const home = newHome();
    const dir = join(home, ".reasonix", "bin");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "reasonix"), "#!/bin/sh\necho old\n");
    chmodSync(join(dir, "reasonix"), 0o755);
    const sums = readFileSync(join(dist.dir, "SHA256SUMS"), "utf8").replace(/^[0-9a-f]{64}/gm, "0".repeat(64));
    overrides.clear();
    overrides.set("SHA256SUMS", sums);
    const r = await run(home);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("checksum mismatch");
    expect(readFileSync(join(dir, "reasonix"), "utf8")).toBe("#!/bin/sh\necho old\n");
    expect(readdirSync(dir)).toEqual(["reasonix"]);
  });

  test("missing archive (HTTP 404): non-zero exit naming the URL, nothing installed", async () => {
    overrides.clear();
    overrides.set(`${dist.target}.tar.gz`, 404);
    const home = newHome();
    const r = await run(home);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(`download failed: http://127.0.0.1:${server.port}/${dist.target}.tar.gz`);
    expect(existsSync(join(home, ".reasonix", "bin", "reasonix"))).toBe(false);
  });

  test("unsupported platform and pinned version mismatch are refused", async () => {
    overrides.clear();
    const home = newHome();
    const fakeBin = mkdtempSync(join(tmpdir(), "rx-fake-uname-"));
    writeFileSync(join(fakeBin, "uname"), '#!/bin/sh\n[ "$1" = -s ] && echo SunOS || echo sparc64\n');
    chmodSync(join(fakeBin, "uname"), 0o755);
    const r = await run(home, [], { PATH: `${fakeBin}:/usr/bin:/bin` });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("unsupported operating system: SunOS");

    const pinned = await run(newHome(), ["--version", "9.9.9"]);
    expect(pinned.code).not.toBe(0);
    expect(pinned.err).toContain("asked for 9.9.9");
  });
});
