// Every `remote connect --json` event the code emits is in the event table of
// docs/remote.md (issue 34 item 11: `starting` was missing), with every
// `installing` phase. Reads the sources, so a new event cannot ship undocumented.
import { expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && !e.parentPath.includes("/tests") && !e.parentPath.includes("/testing"))
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"));

const doc = readFileSync(join(ROOT, "docs/remote.md"), "utf8");
const table = doc.slice(doc.indexOf("| event | fields |"));
const documented = new Set([...table.slice(0, table.indexOf("\n\n")).matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]));

test("every emitted connect event has a row in the docs' event table", () => {
  const code = [...sources("remote/bootstrap"), ...sources("remote/supervisor"), readFileSync(join(ROOT, "cli/commands/remote-connect.ts"), "utf8")].join("\n");
  const emitted = new Set([...code.matchAll(/event: "([a-z_]+)"/g)].map((m) => m[1]));
  expect(emitted.size).toBeGreaterThan(10);
  expect([...emitted].filter((e) => !documented.has(e)).sort()).toEqual([]);
});

test("every installing phase is listed", () => {
  const boot = readFileSync(join(ROOT, "remote/bootstrap/types.ts"), "utf8");
  const phases = /event: "installing"; phase: ([^;]+);/.exec(boot)![1]!.match(/"([a-z_]+)"/g)!.map((p) => p.slice(1, -1));
  const row = table.split("\n").find((l) => l.startsWith("| `installing` |"))!;
  expect(phases.filter((p) => !row.includes(`\`${p}\``))).toEqual([]);
});
