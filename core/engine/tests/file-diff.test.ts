// Unified hunks for writer tools: proposed (before approval) and landed (after).
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diffTexts, landedFileDiffs, proposedFileDiffs, snapshot } from "../file-diff.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const ws = () => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "rx-filediff-")));
  dirs.push(d);
  return d;
};

test("diffTexts: hunks with line numbers, counts and kinds", () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const after = before.replace("line 10\n", "line ten\n");
  const d = diffTexts("a.txt", before, after);
  expect(d).toMatchObject({ path: "a.txt", kind: "modify", added: 1, removed: 1 });
  expect(d.hunks).toHaveLength(1);
  expect(d.hunks[0]).toMatchObject({ oldStart: 7, newStart: 7, oldLines: 7, newLines: 7 });
  expect(d.hunks[0]!.lines).toContain("-line 10");
  expect(d.hunks[0]!.lines).toContain("+line ten");
  expect(diffTexts("n.txt", null, "x\ny\n")).toMatchObject({ kind: "add", added: 2, removed: 0 });
  expect(diffTexts("big", undefined, "x")).toMatchObject({ truncated: true, hunks: [] });
});

test("diffTexts keeps exact counts but cuts very long hunks", () => {
  const after = Array.from({ length: 5000 }, (_, i) => `${i}`).join("\n");
  const d = diffTexts("long.txt", null, after);
  expect(d.added).toBe(5000);
  expect(d.truncated).toBe(true);
  expect(d.hunks.reduce((n, h) => n + h.lines.length, 0)).toBeLessThanOrEqual(2000);
});

test("proposed diffs for edit_file, multi_edit, write_file and move_file", () => {
  const w = ws();
  writeFileSync(join(w, "a.ts"), "const a = 1;\nconst b = 2;\n");
  const edit = proposedFileDiffs("edit_file", { path: "a.ts", old_string: "const b = 2;", new_string: "const b = 3;" }, w);
  expect(edit).toHaveLength(1);
  expect(edit[0]).toMatchObject({ path: "a.ts", kind: "modify", added: 1, removed: 1 });
  expect(edit[0]!.hunks[0]!.lines).toEqual([" const a = 1;", "-const b = 2;", "+const b = 3;"]);

  const multi = proposedFileDiffs("multi_edit", { path: join(w, "a.ts"), edits: [{ old_string: "a = 1", new_string: "a = 10" }, { old_string: "a = 10", new_string: "a = 11" }] }, w);
  expect(multi[0]!.hunks[0]!.lines).toContain("+const a = 11;");
  // An edit that would not apply: no diff (the tool explains the failure).
  expect(proposedFileDiffs("edit_file", { path: "a.ts", old_string: "nope", new_string: "x" }, w)).toEqual([]);

  expect(proposedFileDiffs("write_file", { path: "new/b.txt", content: "hi\n" }, w)[0]).toMatchObject({ path: "new/b.txt", kind: "add", added: 1 });
  expect(proposedFileDiffs("move_file", { source: "a.ts", destination: "c.ts" }, w)[0]).toMatchObject({ kind: "move", from: "a.ts", path: "c.ts", added: 0, removed: 0 });
  expect(proposedFileDiffs("bash", { command: "ls" }, w)).toEqual([]);
});

test("landed diffs compare the snapshot with the files after the call", () => {
  const w = ws();
  writeFileSync(join(w, "x.txt"), "one\ntwo\n");
  const snap = snapshot("write_file", { path: "x.txt" }, w);
  writeFileSync(join(w, "x.txt"), "one\n2\n");
  expect(landedFileDiffs("write_file", { path: "x.txt" }, w, snap)[0]).toMatchObject({ kind: "modify", added: 1, removed: 1 });
  // Nothing changed: nothing reported.
  expect(landedFileDiffs("write_file", { path: "x.txt" }, w, snapshot("write_file", { path: "x.txt" }, w))).toEqual([]);
  const mv = snapshot("move_file", { source: "x.txt", destination: "y.txt" }, w);
  renameSync(join(w, "x.txt"), join(w, "y.txt"));
  expect(landedFileDiffs("move_file", { source: "x.txt", destination: "y.txt" }, w, mv)).toEqual([expect.objectContaining({ kind: "move", from: "x.txt", path: "y.txt" })]);
});
