// onlyWrite: a subagent's path policy narrowed to its declared write paths.
// It may only narrow: a path the full policy would not let be written never
// becomes a root (outside the roots, Reasonix state, protected git state,
// forbid_read, a link out of the workspace).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPathPolicy } from "../paths.ts";

let base: string;
let ws: string;
let outside: string;
let state: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "rx-onlywrite-")));
  ws = join(base, "ws");
  outside = join(base, "outside");
  state = join(base, "state");
  for (const d of [ws, outside, state, join(ws, ".git", "hooks"), join(ws, "a"), join(ws, "b"), join(ws, "secret")]) mkdirSync(d, { recursive: true });
  symlinkSync(outside, join(ws, "link-out"));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const policy = (onlyWrite?: string[]) =>
  createPathPolicy({ cwd: ws, reasonixHome: state, env: { HOME: base }, config: { forbid_read: ["secret"] }, ...(onlyWrite ? { onlyWrite } : {}) });

describe("onlyWrite narrows the write roots", () => {
  test("the declared paths become the only roots; the workspace is no longer one", () => {
    const p = policy(["a/", "missing/dir"]);
    expect(p.workspaceRoot).toBe(ws);
    expect(p.writeRoots).toEqual([join(ws, "a"), join(ws, "missing/dir")]);
    expect(p.checkWrite("a/f.txt").allowed).toBe(true);
    expect(p.checkWrite("missing/dir/x").allowed).toBe(true);
    const b = p.checkWrite("b/f.txt");
    expect(b.allowed).toBe(false);
    expect(!b.allowed && b.code).toBe("outside-write-roots");
    expect(p.checkWrite("top.txt").allowed).toBe(false);
    expect(p.checkRead("b/f.txt").allowed).toBe(true);
  });

  test("an empty list leaves no write root at all (a read-only child)", () => {
    const p = policy([]);
    expect(p.writeRoots).toEqual([]);
    expect(p.checkWrite("a/f.txt").allowed).toBe(false);
  });

  test("never widens: outside paths, links out, Reasonix state, git state and forbid_read are dropped", () => {
    const p = policy([outside, "link-out/x", state, ".git", ".git/hooks", "secret", "/", "../outside", "a"]);
    expect(p.writeRoots).toEqual([join(ws, "a")]);
    expect(p.checkWrite(join(outside, "f")).allowed).toBe(false);
    expect(p.checkWrite(".git/hooks/pre-commit").allowed).toBe(false);
  });

  test("the workspace itself may be declared (a writer confined to everything it could write anyway)", () => {
    const p = policy(["."]);
    expect(p.writeRoots).toEqual([ws]);
    expect(p.checkWrite(".git/hooks/x").allowed).toBe(false);
    expect(p.checkWrite("b/f").allowed).toBe(true);
  });
});
