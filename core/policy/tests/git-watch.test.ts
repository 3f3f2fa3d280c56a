// The planted-git-state watch on a real tree, with real git making the
// repositories: what it reports after a "command" (a change made after
// `since`), and what the file tools' layout check refuses.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitLayoutWriteReason, gitStateChanges, gitStateWrittenSince, isGitDirLayout, watchGitState } from "../git-watch.ts";

const hasGit = spawnSync("git", ["--version"]).status === 0;
if (!hasGit) console.warn("SKIPPED git-watch suite: git is not installed");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tree(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "rx-gitwatch-")));
  dirs.push(d);
  mkdirSync(join(d, "src", "lib"), { recursive: true });
  mkdirSync(join(d, "node_modules", "pkg"), { recursive: true });
  return d;
}
const git = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
/** A plain-file git dir: HEAD, objects/, refs/ (what write_file could make). */
function plainLayout(dir: string): void {
  mkdirSync(join(dir, "objects", "info"), { recursive: true });
  mkdirSync(join(dir, "refs", "heads"), { recursive: true });
  writeFileSync(join(dir, "HEAD"), "ref: refs/heads/main\n");
}

describe.skipIf(!hasGit)("watchGitState / gitStateChanges", () => {
  test("repositories made during a command are found at any depth, node_modules, plain files and symlinks included", () => {
    const ws = tree();
    git(ws, "init", "-q");
    const w = watchGitState([ws]);
    expect([...w.repos.keys()]).toEqual([join(ws, ".git")]);
    const since = Date.now() - 100;
    const deep = join(ws, "a", "b", "c", "d", "e", "f", "g", "h");
    mkdirSync(deep, { recursive: true });
    git(deep, "init", "-q");
    git(join(ws, "node_modules", "pkg"), "init", "-q");
    plainLayout(join(ws, "src", "lib"));
    mkdirSync(join(ws, "store", "o"), { recursive: true });
    mkdirSync(join(ws, "store", "r"));
    mkdirSync(join(ws, "linked"));
    symlinkSync("../store/o", join(ws, "linked", "objects"));
    symlinkSync("../store/r", join(ws, "linked", "refs"));
    writeFileSync(join(ws, "linked", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(ws, "src", ".git"), "gitdir: ../elsewhere\n");
    const found = gitStateChanges(w, since).map((c) => `${c.kind} ${c.path.slice(ws.length)}`).sort();
    expect(found).toEqual(["bare /linked", "bare /src/lib", "dir /a/b/c/d/e/f/g/h/.git", "dir /node_modules/pkg/.git", "file /src/.git"].sort());
    expect(gitStateChanges(w, since)).toEqual([]); // known from now on
  });

  test("a known repository gaining config, hooks or commondir is reported with those names", () => {
    const ws = tree();
    plainLayout(join(ws, "src", "lib"));
    const w = watchGitState([ws]);
    const since = Date.now() - 100;
    writeFileSync(join(ws, "src", "lib", "config"), "[core]\n");
    writeFileSync(join(ws, "src", "lib", "commondir"), "../x\n");
    expect(gitStateChanges(w, since)).toEqual([{ path: join(ws, "src", "lib"), kind: "bare", names: ["config", "commondir"] }]);
  });

  test("what appeared before the command is the user's (left alone), unless it was moved in during the command", async () => {
    const ws = tree();
    const w = watchGitState([ws]);
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "rx-gitwatch-out-")));
    dirs.push(outside);
    git(ws, "init", "-q", "clone-by-user");
    git(outside, "init", "-q", "evil");
    // The command starts well after both: inode times come from a coarse kernel
    // clock, so the check takes 100 ms of slack (as core/sandbox/git-guard.ts does).
    await Bun.sleep(300);
    const since = Date.now() - 100;
    expect(gitStateChanges(w, since)).toEqual([]);
    renameSync(join(outside, "evil"), join(ws, "src", "evil"));
    expect(gitStateChanges(w, since).map((c) => c.path)).toEqual([join(ws, "src", "evil", ".git")]);
  });

  test("after a killed command (gitStateWrittenSince): a new repository loses everything, one that was there only the pieces written since", async () => {
    const ws = tree();
    git(ws, "init", "-q");
    mkdirSync(join(ws, ".git", "modules", "old"), { recursive: true });
    await Bun.sleep(300); // see the slack note above
    const since = Date.now() - 100;
    mkdirSync(join(ws, ".git", "modules", "added-by-the-command")); // modules/ changes with every new submodule
    writeFileSync(join(ws, ".git", "commondir"), "../evil\n");
    git(ws, "init", "-q", "planted");
    const w = watchGitState([ws]);
    const got = gitStateWrittenSince(w, since).map((c) => [c.path.slice(ws.length), (c.names ?? []).sort()]);
    expect(got.sort()).toEqual([
      ["/.git", ["commondir"]],
      ["/planted/.git", ["config", "hooks"]],
    ]);
  });

  test("isGitDirLayout follows git: HEAD plus objects and refs (links followed) or commondir", () => {
    const ws = tree();
    const d = join(ws, "src", "lib");
    expect(isGitDirLayout(d)).toBe(false);
    writeFileSync(join(d, "HEAD"), "ref: refs/heads/main\n");
    expect(isGitDirLayout(d)).toBe(false);
    writeFileSync(join(d, "commondir"), "..\n");
    expect(isGitDirLayout(d)).toBe(true);
  });
});

describe("gitLayoutWriteReason (file tools)", () => {
  test("the write that completes HEAD + objects + refs is refused, and config in a layout; ordinary files are not", () => {
    const ws = tree();
    const p = (...s: string[]) => join(ws, ...s);
    expect(gitLayoutWriteReason(p("src", "HEAD"), ws)).toBeNull();
    writeFileSync(p("src", "HEAD"), "ref: refs/heads/main\n");
    expect(gitLayoutWriteReason(p("src", "objects", "info", "keep"), ws)).toBeNull();
    mkdirSync(p("src", "objects", "info"), { recursive: true });
    expect(gitLayoutWriteReason(p("src", "refs", "heads", "keep"), ws)).toMatch(/git repository/);
    expect(gitLayoutWriteReason(p("src", "config"), ws)).toBeNull(); // not a layout yet
    mkdirSync(p("src", "refs"));
    expect(gitLayoutWriteReason(p("src", "config"), ws)).toMatch(/decides what git runs/);
    expect(gitLayoutWriteReason(p("src", "hooks", "pre-commit"), ws)).toMatch(/decides what git runs/);
    expect(gitLayoutWriteReason(p("src", "README.md"), ws)).toBeNull();
    expect(gitLayoutWriteReason(p("HEAD"), ws)).toBeNull();
    expect(gitLayoutWriteReason(p("docs", "refs", "api.md"), ws)).toBeNull();
  });
});
