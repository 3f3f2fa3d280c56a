// `reasonix trust` counts files in words: "this file" / "these 2 files", "(1 file)" / "(2 files)".
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hasTmux, startChat } from "./chat-helpers.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

const envs: CliEnv[] = [];
afterEach(() => {
  for (const ce of envs.splice(0)) ce.cleanup();
});
const fresh = (files: Record<string, string>) => {
  const ce = makeCliEnv("http://127.0.0.1:9/v1");
  envs.push(ce);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(ce.workspace, rel, ".."), { recursive: true });
    writeFileSync(join(ce.workspace, rel), text);
  }
  return ce;
};
const SETTINGS = '[permissions]\nmode = "auto"\n';

describe("reasonix trust wording", () => {
  test("--yes: '(1 file)' for one project file, '(2 files)' for two", async () => {
    let r = await runCli(fresh({ "reasonix.toml": SETTINGS }), ["trust", "--yes"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("(1 file); a later change");
    r = await runCli(fresh({ "reasonix.toml": SETTINGS, ".reasonix/commands/ship.md": "ship it\n" }), ["trust", "--yes"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("(2 files); a later change");
  });

  test.skipIf(!hasTmux())("the question on a terminal: 'Trust this file …' for one, 'Trust these 2 files …' for two", async () => {
    const one = startChat(fresh({ "reasonix.toml": SETTINGS }), ["trust"]);
    const two = startChat(fresh({ "reasonix.toml": SETTINGS, ".reasonix/commands/ship.md": "ship it\n" }), ["trust"]);
    try {
      await one.waitFor("Trust this file exactly as it is now? [y/N]");
      await two.waitFor("Trust these 2 files exactly as they are now? [y/N]");
    } finally {
      one.kill();
      two.kill();
    }
  }, 60_000);
});
