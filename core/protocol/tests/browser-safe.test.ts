// core/protocol is imported by the browser UI as well as the engine: nothing
// reachable from it may need Node or Bun (node:*, bun:*, a Node builtin).
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, runtimeImportsReachable } from "../../../scripts/lib/imports.ts";

const entries = readdirSync(join(repoRoot, "core/protocol")).filter((f) => /\.tsx?$/.test(f)).map((f) => `core/protocol/${f}`);

test("no node:* or Bun import is reachable from core/protocol", () => {
  expect(entries.length).toBeGreaterThan(0);
  expect(runtimeImportsReachable(entries)).toEqual([]);
});

test("the walk finds a runtime import behind a relative one (the check can fail)", () => {
  // core/serve/sessions.ts reaches node:* only through the files it imports.
  const found = runtimeImportsReachable(["core/serve/sessions.ts"]);
  expect(found.some((f) => !f.startsWith("core/serve/sessions.ts:"))).toBe(true);
});
