// `reasonix setup …` for scripts, and the first-run messages a newcomer meets,
// through the real CLI in a throw-away home against loopback HTTP servers.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";

const main = join(import.meta.dir, "..", "main.ts");
const roots: string[] = [];
const closers: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of closers) await c();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function newHome() {
  const root = mkdtempSync(join(tmpdir(), "rx-setup-cli-"));
  roots.push(root);
  return { root, rx: join(root, ".reasonix") };
}

async function cli(args: string[], root: string, stdin?: string) {
  const p = Bun.spawn([process.execPath, main, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, REASONIX_HOME: join(root, ".reasonix"), NO_COLOR: "1" },
    stdin: stdin !== undefined ? new Blob([stdin]) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

test("setup add --key-stdin stores the key 0600 (never echoed); list, default and remove edit the user config", async () => {
  const { root, rx } = newHome();
  const add = await cli(["setup", "add", "ds", "--preset", "deepseek", "--key-stdin"], root, "sk-secret-123\n");
  expect(add.code).toBe(0);
  expect(add.out + add.err).not.toContain("sk-secret-123");
  expect(add.err).toContain(`added ds (openai, deepseek-chat) to ${join(rx, "config.toml")}; it is default_model`);
  expect(readFileSync(join(rx, ".env"), "utf8")).toBe("DEEPSEEK_API_KEY=sk-secret-123\n");
  expect(statSync(join(rx, ".env")).mode & 0o777).toBe(0o600);
  expect(readFileSync(join(rx, "config.toml"), "utf8")).not.toContain("sk-secret-123");

  const local = await cli(["setup", "add", "local", "--preset", "ollama", "--model", "qwen3:8b"], root);
  expect(local.code).toBe(0);
  const list = JSON.parse((await cli(["setup", "list", "--json"], root)).out);
  expect(list.path).toBe(join(rx, "config.toml"));
  expect(list.providers.map((p: any) => [p.name, p.baseUrl, p.models[0], p.isDefault, p.hasKey])).toEqual([
    ["ds", "https://api.deepseek.com", "deepseek-chat", true, true],
    ["local", "http://127.0.0.1:11434/v1", "qwen3:8b", false, true],
  ]);

  // Presets without a default model need one; a bad --base-url is refused before anything is written.
  const noModel = await cli(["setup", "add", "lm", "--preset", "lmstudio"], root);
  expect(noModel.code).toBe(2);
  expect(noModel.err).toContain("--model is required with --preset lmstudio");
  const badUrl = await cli(["setup", "add", "x", "--base-url", "not a url", "--model", "m"], root);
  expect(badUrl.code).toBe(2);
  expect(badUrl.err).toContain('--base-url "not a url" is not a URL');
  const dup = await cli(["setup", "add", "ds", "--preset", "openai"], root);
  expect(dup.code).toBe(2);
  expect(dup.err).toContain(`a provider named "ds" already exists in ${join(rx, "config.toml")}`);

  expect((await cli(["setup", "default", "local"], root)).code).toBe(0);
  expect(readFileSync(join(rx, "config.toml"), "utf8")).toContain('default_model = "local"');
  const rm = await cli(["setup", "remove", "local"], root);
  expect(rm.code).toBe(0);
  expect(rm.err).toContain('default_model is now "ds"');
  const unknown = await cli(["setup", "remove", "nope"], root);
  expect(unknown.code).toBe(2);
  expect(unknown.err).toContain(`no provider named "nope" in ${join(rx, "config.toml")}`);
});

test("setup test reports latency against the scripted server, and the exact error (exit 1) on a rejected key", async () => {
  const llm = await startScriptedOpenAI([], { models: ["alpha", "beta"] });
  closers.push(() => llm.close());
  const srv = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => Response.json({ error: { message: "Invalid API Key" } }, { status: 401 }),
  });
  closers.push(() => srv.stop(true));
  const { root } = newHome();
  expect((await cli(["setup", "add", "s", "--base-url", llm.url, "--model", "alpha"], root)).code).toBe(0);
  const ok = await cli(["setup", "test", "s", "--models"], root);
  expect(ok.code).toBe(0);
  expect(ok.out).toMatch(/^ok s: connected in \d+ ms \(2 models listed\)\n  alpha\n  beta\n$/);
  const json = JSON.parse((await cli(["setup", "test", "--json"], root)).out);
  expect(json).toMatchObject({ name: "s", ok: true, method: "models", models: ["alpha", "beta"] });
  expect(typeof json.latencyMs).toBe("number");

  expect((await cli(["setup", "add", "r", "--base-url", `http://127.0.0.1:${srv.port}/v1`, "--model", "m", "--key-stdin"], root, "sk-wrong")).code).toBe(0);
  const bad = await cli(["setup", "test", "r"], root);
  expect(bad.code).toBe(1);
  expect(bad.out).toMatch(/^failed r after \d+ ms: provider "r" \(127\.0\.0\.1:\d+\) rejected the credentials \(HTTP 401\): Invalid API Key; check api_key_env R_API_KEY/);
  expect(bad.out).not.toContain("sk-wrong");
});

test("plain `reasonix setup` without a terminal is a usage error that points at the script form", async () => {
  const { root } = newHome();
  const r = await cli(["setup"], root);
  expect(r.code).toBe(2);
  expect(r.err).toContain("`reasonix setup` asks questions and needs a terminal");
  expect(r.err).toContain("reasonix setup add NAME --preset P");
});

test("run with no provider names the real config file and `reasonix setup`, never a literal $REASONIX_HOME", async () => {
  const { root, rx } = newHome();
  const list = await cli(["config", "list"], root);
  expect(list.code).toBe(0);
  expect(list.err).toContain(`no model provider is configured (no [[providers]] in ${join(rx, "config.toml")}): run \`reasonix setup\``);
  const r = await cli(["run", "hello"], root);
  expect(r.code).toBe(1);
  expect(r.err).toContain(`no model provider is configured in ${join(rx, "config.toml")}`);
  expect(r.err).toContain("reasonix setup");
  expect(r.err).not.toContain("$REASONIX_HOME");
  // A key that is missing names the real .env too.
  expect((await cli(["setup", "add", "o", "--preset", "openai"], root)).code).toBe(0);
  const nokey = await cli(["run", "hello"], root);
  expect(nokey.code).toBe(1);
  expect(nokey.err).toContain(`OPENAI_API_KEY has no value in ${join(rx, ".env")}`);
  expect(nokey.err).toContain("reasonix setup key o");
  expect(nokey.err).not.toContain("$REASONIX_HOME");
});

test("a wrong type echoes the value; a directory in place of config.toml names the path", async () => {
  const { root, rx } = newHome();
  await cli(["config", "path"], root);
  require("node:fs").mkdirSync(rx, { recursive: true });
  writeFileSync(join(rx, "config.toml"), '[[providers]]\nname = "g"\nkind = "gemini"\nbase_url = "http://x"\nmodel = "m"\n');
  const kind = await cli(["config", "list"], root);
  expect(kind.code).toBe(1);
  expect(kind.err).toContain('providers[0].kind: expected one of "openai", "anthropic", "responses", got string "gemini"');
  rmSync(join(rx, "config.toml"));
  require("node:fs").mkdirSync(join(rx, "config.toml"));
  const dir = await cli(["config", "list"], root);
  expect(dir.code).toBe(1);
  expect(dir.err).toContain(`${join(rx, "config.toml")}: is a directory, not a file`);
  expect(dir.err).not.toContain("EISDIR");
});

test("setup effort and mcp disable/enable (the settings panel's editors) change one line; unknown names and levels exit 2 writing nothing", async () => {
  const { root, rx } = newHome();
  expect((await cli(["setup", "add", "local", "--preset", "ollama", "--model", "qwen3:8b"], root)).code).toBe(0);
  const cfg = join(rx, "config.toml");
  writeFileSync(cfg, `${readFileSync(cfg, "utf8")}\n[[plugins]]\nname = "files" # keep this comment\ncommand = "true"\n`);
  const start = readFileSync(cfg, "utf8");
  let r = await cli(["setup", "effort", "local", "high"], root);
  expect(r.code).toBe(0);
  expect(r.err).toBe(`${cfg}: local: reasoning_effort = "high"\n`);
  r = await cli(["mcp", "disable", "files"], root);
  expect(r.code).toBe(0);
  expect(r.out).toBe(`disabled MCP server files in ${cfg}\n`);
  expect(readFileSync(cfg, "utf8")).toBe(start.replace('model = "qwen3:8b"\n', 'model = "qwen3:8b"\nreasoning_effort = "high"\n').replace('command = "true"\n', 'command = "true"\nenabled = false\n'));
  expect((await cli(["mcp", "enable", "files"], root)).code).toBe(0);
  expect((await cli(["setup", "effort", "local", "default"], root)).code).toBe(0);
  expect(readFileSync(cfg, "utf8")).toBe(start);
  for (const args of [["setup", "effort", "local", "huge"], ["setup", "effort", "nope", "low"], ["mcp", "disable", "nope"]]) {
    r = await cli(args, root);
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
  }
  expect(readFileSync(cfg, "utf8")).toBe(start);
});
