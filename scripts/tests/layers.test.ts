// scripts/check-layers.ts as part of `npm test`: the import direction
// cli → remote → core, core/protocol on its own, and no import cycles
// (type-only imports included).
import { expect, test } from "bun:test";
import { brokenRule, checkLayers, MAX_LINES, oversizedFiles, oversizeWarnings } from "../check-layers.ts";
import { cycles, importsIn } from "../lib/imports.ts";

test("imports go cli → remote → core, core/protocol imports only itself, no import cycles", () => {
  const r = checkLayers();
  expect(r.direction).toEqual([]);
  expect(r.cycles).toEqual([]);
});

test("each direction rule names the import that breaks it", () => {
  expect(brokenRule("core/serve/x.ts", "../../cli/output.ts", "cli/output.ts")).toContain("core never imports cli");
  expect(brokenRule("core/serve/x.ts", "../../remote/a.ts", "remote/a.ts")).toContain("core never imports remote");
  expect(brokenRule("remote/hosts/x.ts", "../../cli/a.ts", "cli/a.ts")).toContain("remote never imports cli");
  expect(brokenRule("core/protocol/x.ts", "../engine/types.ts", "core/engine/types.ts")).toContain("core/protocol imports nothing outside itself");
  expect(brokenRule("core/protocol/x.ts", "node:fs")).toContain("core/protocol imports nothing outside itself");
  expect(brokenRule("core/protocol/x.ts", "./modes.ts", "core/protocol/modes.ts")).toBeUndefined();
  expect(brokenRule("cli/x.ts", "../remote/a.ts", "remote/a.ts")).toBeUndefined();
  expect(brokenRule("remote/x.ts", "../core/a.ts", "core/a.ts")).toBeUndefined();
});

test("type-only imports, re-exports and import() types are edges; comments and strings are not", () => {
  const text = `// import "./x.ts"\nconst s = "import('./y.ts')";\nimport type { A } from "./a.ts";\nexport type { B } from "./b.ts";\nlet c: import("./c.ts").C;\nvoid import("./d.ts");`;
  expect(importsIn(text, "core/z.ts").map((e) => e.spec)).toEqual(["./a.ts", "./b.ts", "./c.ts", "./d.ts"]);
});

test("a two-file cycle and a self-import are found; a chain is not", () => {
  const g = new Map([["a", ["b"]], ["b", ["a"]], ["c", ["c"]], ["d", ["e"]], ["e", []]]);
  expect(cycles(g).map((c) => c.join(","))).toEqual(["a,b", "c"]);
});

test(`product files over ${MAX_LINES} lines are listed as a warning (not a failure)`, () => {
  // A warning, so a file a few lines over does not break the suite while someone splits it.
  for (const w of oversizeWarnings()) console.warn(w);
  // The listing itself: a low limit names this script, never a test file.
  const small = oversizedFiles(40);
  expect(small.some((f) => f.startsWith("scripts/check-layers.ts ("))).toBe(true);
  expect(small.filter((f) => /\/tests\/|\.test\.tsx?/.test(f))).toEqual([]);
});
