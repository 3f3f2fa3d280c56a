// The compiled binary, exercised the way users meet it: in a directory with no
// source tree, in a hostile repository, and upgrading itself from a release server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../../scripts/build.ts";
import { builtDist, type BuiltDist } from "../../scripts/lib/built-dist.ts";
import { version } from "../../package.json";
import { BUILD_HOOK_MS } from "../../remote/testing/test-build.ts";

let dist: BuiltDist;
beforeAll(async () => {
  dist = await builtDist();
}, BUILD_HOOK_MS);

const tmp = (p: string) => mkdtempSync(join(tmpdir(), p));

async function exec(bin: string, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  const home = tmp("rx-bin-home-");
  const p = Bun.spawn([bin, ...args], {
    cwd: opts.cwd ?? tmp("rx-empty-"),
    env: { PATH: "/usr/bin:/bin", HOME: home, REASONIX_HOME: join(home, ".reasonix"), ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

describe("compiled binary", () => {
  test("--version, -v and version --json carry the build stamp and docs digest", async () => {
    expect((await exec(dist.binary, ["--version"])).out).toBe(`reasonix ${version}\n`);
    expect((await exec(dist.binary, ["-v"])).out).toBe(`reasonix ${version}\n`);
    const r = await exec(dist.binary, ["version", "--json"]);
    const info = JSON.parse(r.out);
    expect(info.version).toBe(version);
    expect(info.commit).toMatch(/^[0-9a-f]{12}$|^unknown$/);
    expect(info.buildTime).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(info.platform).toBe(`${process.platform}-${process.arch}`);
    const { docsAssets } = await import("../../core/assets/index.ts");
    expect(info.docsDigest).toBe(docsAssets.digest);
  });

  test("docs search and show work in an empty directory (docs are embedded)", async () => {
    const r = await exec(dist.binary, ["docs", "search", "rosetta", "musl", "--json"]);
    expect(r.code).toBe(0);
    const hits = JSON.parse(r.out);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0].path).toBe("install.md");
    expect(typeof hits[0].heading).toBe("string");
    expect(hits[0].score).toBeGreaterThan(0);
    expect(hits[0].snippet.toLowerCase()).toContain("rosetta");
    const show = await exec(dist.binary, ["docs", "show", "install.md#install-with-the-script"]);
    expect(show.code).toBe(0);
    expect(show.out).toStartWith("## Install with the script");
    const missing = await exec(dist.binary, ["docs", "show", "nope.md"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no embedded document "nope.md"');
  });

  test("does not load bunfig.toml, .env, package.json or tsconfig.json from the working directory", async () => {
    const repo = tmp("rx-hostile-");
    const marker = join(repo, "PWNED");
    writeFileSync(join(repo, "evil.ts"), `require("fs").writeFileSync(${JSON.stringify(marker)}, "x");`);
    writeFileSync(join(repo, "bunfig.toml"), 'preload = ["./evil.ts"]\n[run]\nbun = true\n');
    writeFileSync(join(repo, ".env"), "REASONIX_HOME=/tmp/hijacked\nNODE_OPTIONS=--require ./evil.ts\n");
    writeFileSync(join(repo, "package.json"), JSON.stringify({ name: "evil", version: "6.6.6", type: "commonjs", imports: { "#x": "./evil.ts" } }));
    writeFileSync(join(repo, "tsconfig.json"), JSON.stringify({ compilerOptions: { paths: { "*": ["./evil.ts"] }, jsx: "react" } }));
    for (const args of [["--version"], ["doctor", "--json"], ["config", "list", "--json"]]) {
      const r = await exec(dist.binary, args, { cwd: repo });
      if (args[0] === "--version") expect(r.out).toBe(`reasonix ${version}\n`);
      if (args[0] === "doctor") {
        const report = JSON.parse(r.out);
        expect(report.home).not.toBe("/tmp/hijacked");
        // A fresh home has no provider, so doctor exits 1 for that, and for nothing the repository planted.
        expect(r.code).toBe(1);
        expect(report.checks.filter((c: { status: string; id: string }) => c.status === "fail" && c.id !== "sandbox").map((c: { id: string }) => c.id)).toEqual(["providers"]);
      } else expect(r.code).toBe(0);
    }
    expect(await Bun.file(marker).exists()).toBe(false);
  });

  test("usage errors exit 2 with a one-line hint; NO_COLOR output has no escapes", async () => {
    const r = await exec(dist.binary, ["docter"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown command "docter"');
    expect(r.err).toContain('did you mean "reasonix doctor"');
    const flag = await exec(dist.binary, ["doctor", "--frobnicate"]);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain("--frobnicate");
    const help = await exec(dist.binary, ["--help"], { env: { NO_COLOR: "1" } });
    expect(help.code).toBe(0);
    expect(help.out).toContain("doctor");
    expect(help.out).not.toContain("\x1b[");
    const completion = await exec(dist.binary, ["completion"], { env: { SHELL: "/bin/bash" } });
    expect(completion.code).toBe(0);
    expect(completion.out).toContain("complete -o");
  });
});

describe("reasonix upgrade", () => {
  let server: ReturnType<typeof Bun.serve>;
  let newDir: string;
  const next = version.replace(/\d+$/, (d) => String(Number(d) + 1));
  let tamper = false;

  beforeAll(async () => {
    newDir = tmp("rx-dist-next-");
    const prev = process.env.REASONIX_VERSION;
    process.env.REASONIX_VERSION = next;
    try {
      await build({ single: true, outDir: newDir, noUploadArtifacts: true });
    } finally {
      if (prev === undefined) delete process.env.REASONIX_VERSION;
      else process.env.REASONIX_VERSION = prev;
    }
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const name = new URL(req.url).pathname.split("/").pop()!;
        if (tamper && name === "SHA256SUMS") return new Response(readFileSync(join(newDir, name), "utf8").replace(/^[0-9a-f]{64}/gm, "f".repeat(64)));
        return Bun.file(join(newDir, name)).size > 0 ? new Response(Bun.file(join(newDir, name))) : new Response("missing", { status: 404 });
      },
    });
  }, 240_000);
  afterAll(() => server?.stop(true));

  const install = () => {
    const dir = tmp("rx-installed-");
    const bin = join(dir, "reasonix");
    copyFileSync(dist.binary, bin);
    Bun.spawnSync(["chmod", "755", bin]);
    return bin;
  };
  const url = () => ({ REASONIX_DOWNLOAD_URL: `http://127.0.0.1:${server.port}` });

  test("--check reports the newer release without changing anything", async () => {
    tamper = false;
    const bin = install();
    const r = await exec(bin, ["upgrade", "--check", "--json"], { env: url() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ current: version, latest: next, updateAvailable: true, installed: false });
    expect((await exec(bin, ["--version"])).out).toBe(`reasonix ${version}\n`);
  });

  test("a checksum mismatch leaves the running binary untouched", async () => {
    tamper = true;
    const bin = install();
    const r = await exec(bin, ["upgrade"], { env: url() });
    expect(r.code).toBe(1);
    expect(r.err).toContain("checksum mismatch");
    expect((await exec(bin, ["--version"])).out).toBe(`reasonix ${version}\n`);
  });

  test("downloads, verifies and atomically replaces the binary", async () => {
    tamper = false;
    const bin = install();
    const r = await exec(bin, ["upgrade"], { env: url() });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`→ ${next}`);
    expect((await exec(bin, ["--version"])).out).toBe(`reasonix ${next}\n`);
  });
});
