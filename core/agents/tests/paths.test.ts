// Declared write paths are compared where they land on disk: a symlinked
// folder is the folder it points to, so two writers cannot run at once on the
// same files by naming them through different links.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeWritePaths, pathsOverlap, withinWritePaths } from "../paths.ts";

let ws = "";
afterEach(() => rmSync(ws, { recursive: true, force: true }));

function workspace(): string {
  ws = realpathSync(mkdtempSync(join(tmpdir(), "write-paths-")));
  mkdirSync(join(ws, "src/real"), { recursive: true });
  mkdirSync(join(ws, "docs"));
  symlinkSync("src/real", join(ws, "alias"));
  return ws;
}

test("paths through a symlinked folder overlap the folder it points to", () => {
  const w = workspace();
  const a = normalizeWritePaths(w, ["alias/"]);
  const b = normalizeWritePaths(w, ["src/real/module/*.ts"]);
  expect(a).toEqual([join(w, "src/real")]);
  expect(pathsOverlap(a, b)).toBe(true);
  expect(pathsOverlap(a, normalizeWritePaths(w, ["docs/"]))).toBe(false);
});

test("a path that does not exist yet resolves through its nearest existing folder", () => {
  const w = workspace();
  expect(normalizeWritePaths(w, ["alias/new/dir/file.ts"])).toEqual([join(w, "src/real/new/dir/file.ts")]);
  expect(normalizeWritePaths(w, ["fresh/"])).toEqual([join(w, "fresh")]);
});

test("a write through a link is inside the declared folder it reaches, and a link out of it is not", () => {
  const w = workspace();
  symlinkSync("../../docs", join(w, "src/real/out"));
  const declared = normalizeWritePaths(w, ["src/real/"]);
  expect(withinWritePaths(normalizeWritePaths(w, ["alias/x.ts"])[0]!, declared)).toBe(true);
  expect(withinWritePaths(normalizeWritePaths(w, ["src/real/out/x.md"])[0]!, declared)).toBe(false);
});
