// The editors behind the settings panel and `reasonix mcp enable/disable`,
// `reasonix setup effort`: one field of one [[array table]] entry changes,
// comments and every other line survive, and a rule comes out of a list.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setArrayTableField } from "../array-tables.ts";
import { setServerEnabled } from "../../mcp/edit.ts";
import { persistRule, removeRule } from "../../permissions/persist.ts";
import { setProviderEffort } from "../../setup/providers.ts";

const dir = join(tmpdir(), `reasonix-editors-${process.pid}`);
mkdirSync(dir, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXT = `# top\n[[plugins]]\nname = "a" # first\ncommand = "x"\n\n[plugins.env]\nK = "v"\n\n[[plugins]]\nname = "b"\ncommand = "y"\nenabled = false\n`;

test("setArrayTableField: adds before the entry's sub-tables, replaces, removes; other entries untouched", () => {
  const off = setArrayTableField(TEXT, "plugins", "a", "enabled", false)!;
  expect(off).toBe(TEXT.replace('command = "x"\n', 'command = "x"\nenabled = false\n'));
  expect(setArrayTableField(off, "plugins", "a", "enabled", undefined)).toBe(TEXT);
  expect(setArrayTableField(TEXT, "plugins", "b", "enabled", true)).toBe(TEXT.replace("enabled = false", "enabled = true"));
  expect(setArrayTableField(TEXT, "plugins", "zzz", "enabled", true)).toBeNull();
});

test("setServerEnabled and setProviderEffort edit one field of one entry; unknown names are refused", () => {
  const file = join(dir, "config.toml");
  writeFileSync(file, TEXT);
  setServerEnabled("b", true, file);
  setServerEnabled("a", false, file);
  expect(readFileSync(file, "utf8")).toBe(TEXT.replace('command = "x"\n', 'command = "x"\nenabled = false\n').replace('command = "y"\nenabled = false\n', 'command = "y"\n'));
  expect(() => setServerEnabled("nope", true, file)).toThrow('no MCP server named "nope"');

  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  const cfg = `default_model = "p"\n\n[[providers]]\nname = "p" # mine\nkind = "openai"\nbase_url = "http://127.0.0.1:1/v1"\nmodel = "m"\n`;
  writeFileSync(join(home, "config.toml"), cfg);
  setProviderEffort("p", "high", home);
  expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(`${cfg}reasoning_effort = "high"\n`);
  setProviderEffort("p", undefined, home);
  expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(cfg);
  expect(() => setProviderEffort("p", "huge", home)).toThrow('effort "huge" is not a reasoning effort');
  expect(() => setProviderEffort("q", "low", home)).toThrow('no provider named "q"');
});

test("removeRule takes one rule out of its list (the file otherwise as it was); absent rule: no write", () => {
  const file = join(dir, "rules.toml");
  writeFileSync(file, "# keep me\n[permissions]\nmode = \"ask\"\n");
  persistRule(file, "Bash(npm test)", "allow");
  persistRule(file, "Read(docs/**)", "allow");
  expect(removeRule(file, "Bash(npm test)", "allow")?.path).toBe(file);
  expect(readFileSync(file, "utf8")).toBe('# keep me\n[permissions]\nmode = "ask"\nallow = [ "Read(docs/**)" ]\n');
  expect(removeRule(file, "Bash(npm test)", "allow")).toBeUndefined();
});
