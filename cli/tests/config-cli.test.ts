// `reasonix config` and `reasonix doctor` from source, in a throw-away home.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const main = join(import.meta.dir, "..", "main.ts");

async function cli(args: string[], home: string, cwd: string) {
  const p = Bun.spawn([process.execPath, main, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, REASONIX_HOME: join(home, ".reasonix"), NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

test("config set/get/list round trip through the user file, with sources", async () => {
  const home = mkdtempSync(join(tmpdir(), "rx-cfg-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "rx-cfg-cwd-"));
  expect((await cli(["config", "set", "sandbox.network", "true"], home, cwd)).code).toBe(0);
  const file = join(home, ".reasonix", "config.toml");
  expect(readFileSync(file, "utf8")).toBe("[sandbox]\nnetwork = true\n");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect((await cli(["config", "get", "sandbox.network"], home, cwd)).out).toBe("true\n");
  writeFileSync(join(cwd, "reasonix.toml"), "[agent]\nmax_steps = 4\n[serve]\naddr = \"0.0.0.0:1\"\n");
  const list = await cli(["config", "list", "--json"], home, cwd);
  const rows = JSON.parse(list.out) as { key: string; value: unknown; source: string }[];
  expect(rows.find((r) => r.key === "agent.max_steps")).toEqual({ key: "agent.max_steps", value: 4, source: join(cwd, "reasonix.toml") });
  expect(rows.find((r) => r.key === "sandbox.network")?.source).toBe(file);
  expect(rows.find((r) => r.key === "serve.addr")?.value).toBe("127.0.0.1:8787");
  expect(list.err).toContain(`${join(cwd, "reasonix.toml")}:3: serve ignored: only the user config (${file}) may set it`);

  const bad = await cli(["config", "set", "sandbox.network", "perhaps"], home, cwd);
  expect(bad.code).toBe(2);
  expect(bad.err).toContain("sandbox.network: expected true or false");
  expect(readFileSync(file, "utf8")).toBe("[sandbox]\nnetwork = true\n");
});

test("doctor --json names config files, the keys each supplies, tools and asset digests", async () => {
  const home = mkdtempSync(join(tmpdir(), "rx-doc-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "rx-doc-cwd-"));
  await cli(["config", "set", "default_model", "m1"], home, cwd);
  writeFileSync(join(cwd, "reasonix.toml"), "[permissions]\nallow = [\"Bash(ls)\"]\n");
  const r = await cli(["doctor", "--json"], home, cwd);
  // No [[providers]] at all: the agent cannot run, so doctor fails and says so.
  expect(r.code).toBe(1);
  const report = JSON.parse(r.out);
  expect(report.ok).toBe(false);
  expect(report.checks.find((c: { id: string }) => c.id === "providers")).toMatchObject({ status: "fail" });
  expect(report.home).toBe(join(home, ".reasonix"));
  expect(report.configFiles).toEqual([
    { scope: "user", path: join(home, ".reasonix", "config.toml"), exists: true, keys: ["default_model"] },
    { scope: "project", path: join(cwd, "reasonix.toml"), exists: true, keys: ["permissions.allow"] },
  ]);
  // Platform-relevant tools only: bwrap on Linux, sandbox-exec on macOS, never the other one.
  const [mine, other] = process.platform === "darwin" ? ["sandbox-exec", "bwrap"] : ["bwrap", "sandbox-exec"];
  for (const name of ["ssh", mine, "rg"]) expect(report.tools.some((t: { name: string }) => t.name === name)).toBe(true);
  expect(report.tools.some((t: { name: string }) => t.name === other)).toBe(false);
  expect(report.assets.docs).toMatch(/^[0-9a-f]{64}$/);
  expect(report.assets["sandbox-profiles"]).toMatch(/^[0-9a-f]{64}$/);

  writeFileSync(join(cwd, "reasonix.toml"), "[permissions\n");
  const broken = await cli(["doctor", "--json"], home, cwd);
  expect(JSON.parse(broken.out).configErrors[0]).toContain(`${join(cwd, "reasonix.toml")}:1:`);
});
