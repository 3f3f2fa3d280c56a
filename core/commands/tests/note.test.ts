// `#note`: which instruction file a note goes to (the order instructions.ts
// reads them), how it is appended (atomic, mode kept), and what is refused.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendNote, noteNeedsConfirmation, noteTarget, parseNote } from "../note.ts";
import { scanInstructionFiles } from "../../engine/instructions.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const ws = () => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "rx-note-")));
  dirs.push(d);
  return d;
};

test("parseNote: one line after a single #; headings, shebangs, multi-line text and a bare # are prompts", () => {
  expect(parseNote("#always run bun test")).toBe("always run bun test");
  expect(parseNote("  # use pnpm, not npm  ")).toBe("use pnpm, not npm");
  expect(parseNote("## Heading")).toBeUndefined();
  expect(parseNote("#!/bin/sh")).toBeUndefined();
  expect(parseNote("# Title\nand a body")).toBeUndefined();
  expect(parseNote("#")).toBeUndefined();
  expect(parseNote("fix #123")).toBeUndefined();
});

test("the target is the first of REASONIX.md, AGENTS.md, CLAUDE.md that exists, else a new AGENTS.md", () => {
  const d = ws();
  expect(noteTarget(d)).toEqual({ path: join(d, "AGENTS.md"), rel: "AGENTS.md", exists: false });
  writeFileSync(join(d, "CLAUDE.md"), "# Claude\n");
  expect(noteTarget(d).rel).toBe("CLAUDE.md");
  writeFileSync(join(d, "AGENTS.md"), "# Agents\n");
  expect(noteTarget(d).rel).toBe("AGENTS.md");
  writeFileSync(join(d, "REASONIX.md"), "# Reasonix\n");
  expect(noteTarget(d).rel).toBe("REASONIX.md");
});

test("appending keeps the content and the file mode, adds a missing newline, leaves no temp file; the next session reads it", () => {
  const d = ws();
  writeFileSync(join(d, "AGENTS.md"), "# Rules\n- be brief");
  chmodSync(join(d, "AGENTS.md"), 0o640);
  appendNote(d, "use pnpm");
  appendNote(d, "tests: bun test \u0007");
  expect(readFileSync(join(d, "AGENTS.md"), "utf8")).toBe("# Rules\n- be brief\n- use pnpm\n- tests: bun test\n");
  expect(statSync(join(d, "AGENTS.md")).mode & 0o777).toBe(0o640);
  expect(readdirSync(d)).toEqual(["AGENTS.md"]);
  const scan = scanInstructionFiles(d, join(d, "no-home"));
  expect(scan.files.map((f) => f.text).join("\n")).toContain("- use pnpm");
  // A new file when there is none.
  const e = ws();
  expect(appendNote(e, "first note").exists).toBe(false);
  expect(readFileSync(join(e, "AGENTS.md"), "utf8")).toBe("- first note\n");
});

test("a link to outside the workspace is refused; a link inside is followed and stays a link; empty and huge notes are refused", () => {
  const d = ws();
  const outside = ws();
  writeFileSync(join(outside, "secret.md"), "keep\n");
  symlinkSync(join(outside, "secret.md"), join(d, "AGENTS.md"));
  expect(() => noteTarget(d)).toThrow("links outside the workspace");
  expect(readFileSync(join(outside, "secret.md"), "utf8")).toBe("keep\n");
  const e = ws();
  writeFileSync(join(e, "docs.md"), "# Docs\n");
  symlinkSync(join(e, "docs.md"), join(e, "CLAUDE.md"));
  appendNote(e, "linked");
  expect(readFileSync(join(e, "docs.md"), "utf8")).toBe("# Docs\n- linked\n");
  expect(lstatSync(join(e, "CLAUDE.md")).isSymbolicLink()).toBe(true);
  expect(() => appendNote(e, "   ")).toThrow("the note is empty");
  expect(() => appendNote(e, "x".repeat(3000))).toThrow("at most 2000");
});

test("confirmation: asked in ask, plan and read-only; auto and yolo write at once", () => {
  expect(["ask", "plan", "read-only", undefined].map(noteNeedsConfirmation)).toEqual([true, true, true, true]);
  expect(["auto", "yolo"].map(noteNeedsConfirmation)).toEqual([false, false]);
});
