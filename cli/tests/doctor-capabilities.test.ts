// `reasonix doctor capabilities` shows the catalog, shadowing, what is not
// loaded (untrusted project files) and hooks — as text and as JSON.
import { afterEach, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { put } from "../../core/commands/tests/helpers.ts";

let ce: CliEnv;
afterEach(() => ce?.cleanup());

test("shadowing, untrusted project commands/skills/hooks and user hooks are listed; trust loads them", async () => {
  ce = makeCliEnv("http://127.0.0.1:9/v1");
  appendFileSync(join(ce.home, "config.toml"), '\n[[hooks]]\nevent = "PreToolUse"\nmatcher = "bash"\ncommand = "./check.sh"\ntimeout_seconds = 5\n');
  put(join(ce.home, "commands/init.md"), "---\ndescription: my init\n---\nMine\n");
  put(join(ce.workspace, ".reasonix/commands/ship.md"), "Ship\n");
  put(join(ce.workspace, ".reasonix/skills/deploy/SKILL.md"), "---\nname: deploy\ndescription: deploy\nrunAs: subagent\n---\nGo\n");
  put(join(ce.workspace, ".reasonix/hooks.toml"), '[[hooks]]\nevent = "Stop"\ncommand = "notify-send done"\n');

  const json = await runCli(ce, ["doctor", "capabilities", "--json"]);
  expect(json.code).toBe(0);
  const r = JSON.parse(json.stdout);
  expect(r.shadowed).toEqual([{ name: "init", scope: "builtin", source: "built-in", by: join(ce.home, "commands/init.md"), byScope: "user", reachableAs: "reasonix:init" }]);
  expect(r.notLoaded.map((n: any) => [n.name, n.reason])).toEqual([
    ["ship", "not loaded: workspace not trusted (reasonix trust)"],
    ["deploy", "not loaded: workspace not trusted (reasonix trust)"],
  ]);
  expect(r.hooks.map((h: any) => [h.event, h.scope, h.loaded])).toEqual([["PreToolUse", "user", true], ["Stop", "project", false]]);

  const text = await runCli(ce, ["doctor", "capabilities"]);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain(`/init (builtin: built-in) is shadowed by user: ${join(ce.home, "commands/init.md")} — still reachable as /reasonix:init`);
  expect(text.stdout).toContain("/ship (command, project:");
  expect(text.stdout).toContain("Stop notify-send done");

  expect((await runCli(ce, ["trust", "--yes"])).code).toBe(0);
  const after = JSON.parse((await runCli(ce, ["doctor", "capabilities", "--json"])).stdout);
  expect(after.notLoaded).toEqual([]);
  expect(after.commands.find((c: any) => c.name === "deploy")).toMatchObject({ kind: "skill", scope: "project", runAs: "subagent" });
  expect(after.hooks.every((h: any) => h.loaded)).toBe(true);

  expect((await runCli(ce, ["doctor", "nonsense"])).code).toBe(2);
});
