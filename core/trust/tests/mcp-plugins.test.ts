// A project's MCP servers ([[plugins]]): dropped until the workspace is
// trusted, and even a trusted project cannot take a server out of the sandbox.
import { expect, test } from "bun:test";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.ts";

const tmp = (p: string) => realpathSync(mkdtempSync(join(tmpdir(), p)));

const project = [
  "[[plugins]]",
  'name = "fs"',
  'command = "node"',
  "sandbox = false",
  "",
  "[[plugins]]",
  'name = "echo"',
  'command = "node"',
  "",
].join("\n");

test("an untrusted project's [[plugins]] are dropped with file:line", () => {
  const home = tmp("rx-mcp-trust-home-");
  const ws = tmp("rx-mcp-trust-ws-");
  writeFileSync(join(home, "config.toml"), "");
  writeFileSync(join(ws, "reasonix.toml"), project);
  const c = loadConfig({ home, cwd: ws });
  expect(c.values.plugins).toBeUndefined();
  const i = c.trust.ignored.find((x) => x.key === "plugins")!;
  expect(i.line).toBe(1);
  expect(i.trustable).toBe(true);
});

test("a trusted project cannot set sandbox = false on a server: the field is dropped, the entry kept", () => {
  const home = tmp("rx-mcp-trust-home-");
  const ws = tmp("rx-mcp-trust-ws-");
  writeFileSync(join(home, "config.toml"), '[[plugins]]\nname = "mine"\ncommand = "x"\nsandbox = false\n');
  writeFileSync(join(ws, "reasonix.toml"), project);
  const c = loadConfig({ home, cwd: ws, trustProject: true });
  expect(c.trust.trusted).toBe(true);
  const plugins = c.values.plugins as Record<string, unknown>[];
  expect(plugins.map((p) => p.name)).toEqual(["fs", "echo"]);
  expect(plugins[0]!.sandbox).toBeUndefined();
  const i = c.trust.ignored.find((x) => x.key.startsWith("plugins.sandbox"))!;
  expect(i.key).toBe("plugins.sandbox (fs)");
  expect(i.line).toBe(4);
  expect(i.trustable).toBe(false);
  expect(i.reason).toContain("only the user config");
  // The user's own file may (its entries are read from the user file by core/mcp/config.ts).
  const user = c.files.find((f) => f.scope === "user")!.data.plugins as Record<string, unknown>[];
  expect(user[0]!.sandbox).toBe(false);
});
