import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReasonixError } from "../../errors.ts";
import { scanRepos } from "../git.ts";
import { createPathPolicy, expandPathVars, resolveReal } from "../paths.ts";

let base: string;
let ws: string;
let outside: string;
let state: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "rx-policy-")));
  ws = join(base, "ws");
  outside = join(base, "outside");
  state = join(base, "state");
  for (const d of [ws, outside, state, join(ws, ".git", "hooks"), join(ws, "src"), join(outside, "secret-dir")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, "secret.txt"), "s");
  writeFileSync(join(state, ".env"), "DEEPSEEK_API_KEY=x");
  symlinkSync(outside, join(ws, "link-out"));
  symlinkSync(join(outside, "nope.txt"), join(ws, "dangling"));
  symlinkSync("../../outside", join(ws, "src", "rel-out-parent-trick"));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const policy = (extra: Parameters<typeof createPathPolicy>[0] = {}) =>
  createPathPolicy({ cwd: ws, reasonixHome: state, env: { HOME: base, OUT: outside }, ...extra });

describe("resolveReal", () => {
  test("follows symlinks, then .. from the link target", () => {
    // ws/link-out/.. is the parent of `outside` (base), not ws
    expect(resolveReal(`${ws}/link-out/../x`)).toBe(join(base, "x"));
    expect(resolveReal("link-out/../x", ws)).toBe(join(base, "x"));
  });
  test("missing tail is joined onto the real ancestor", () => {
    expect(resolveReal("link-out/new/file.txt", ws)).toBe(join(outside, "new", "file.txt"));
  });
  test("dangling link resolves to its target", () => {
    expect(resolveReal(join(ws, "dangling"))).toBe(join(outside, "nope.txt"));
  });
  test("symlink loops are an error, not a hang", () => {
    symlinkSync(join(base, "loopB"), join(base, "loopA"));
    symlinkSync(join(base, "loopA"), join(base, "loopB"));
    expect(() => resolveReal(join(base, "loopA", "x"))).toThrow(/too many levels/);
  });
});

describe("expandPathVars", () => {
  test("${HOME}, ${VAR}, $VAR and ~", () => {
    const env = { HOME: "/h", X: "/x" };
    expect(expandPathVars("${HOME}/a", env, "f")).toBe("/h/a");
    expect(expandPathVars("$X/b", env, "f")).toBe("/x/b");
    expect(expandPathVars("~/c", env, "f")).toBe("/h/c");
  });
  test("unset variable fails closed, naming the field", () => {
    expect(() => expandPathVars("${NOPE_NOT_SET}/a", {}, "sandbox.forbid_read")).toThrow(/sandbox.forbid_read.*NOPE_NOT_SET/);
  });
});

describe("createPathPolicy", () => {
  test("workspace defaults to cwd and is writable", () => {
    const p = policy();
    expect(p.workspaceRoot).toBe(ws);
    expect(p.writeRoots).toEqual([ws]);
    expect(p.checkWrite("src/a.ts")).toEqual({ allowed: true, path: join(ws, "src", "a.ts") });
  });

  test("writes outside, through a link, a dangling link, or .. are denied", () => {
    const p = policy();
    for (const target of [join(outside, "a"), "link-out/a", "dangling", "../outside/a", "src/rel-out-parent-trick/a"]) {
      const d = p.checkWrite(target);
      expect(d.allowed).toBe(false);
      if (!d.allowed) {
        expect(d.code).toBe("outside-write-roots");
        expect(d.reason).toContain("--add-dir");
      }
    }
  });

  test("protected paths stay read-only inside write roots", () => {
    const p = policy();
    for (const t of [".git/hooks/pre-commit", ".git/config", ".reasonix/x", "reasonix.toml", ".mcp.json"]) {
      const d = p.checkWrite(t);
      expect(d.allowed).toBe(false);
      if (!d.allowed) expect(d.code).toBe("protected-path");
      expect(p.checkRead(t).allowed).toBe(true);
    }
    expect(p.checkWrite(".git/objects/ab").allowed).toBe(true);
    expect(p.checkRemove(".git").allowed).toBe(false);
    expect(p.checkRemove(".").allowed).toBe(false);
    expect(p.checkRemove("src").allowed).toBe(true);
    expect(p.protectedPaths.map((x) => x.name)).toEqual([".git/hooks", ".git/config", ".git/config.worktree", ".git/commondir", ".git/gitdir", ".reasonix", "reasonix.toml", ".mcp.json"]);
  });

  test("a submodule's hooks and config inside .git/modules stay read-only too", () => {
    const p = policy();
    for (const t of [".git/modules/sub/hooks/post-checkout", ".git/modules/sub/config", ".git/modules/a/modules/b/hooks/pre-commit", ".git/modules/a/modules/b/config", ".git/modules/sub/hooks"]) {
      expect(p.checkWrite(t)).toMatchObject({ allowed: false, code: "protected-path" });
    }
    expect(p.checkWrite(".git/modules/sub/objects/ab/cd").allowed).toBe(true);
    expect(p.checkWrite(".git/modules/sub/refs/heads/config-branch").allowed).toBe(true);
    expect(p.checkWrite("src/hooks/config").allowed).toBe(true);
  });

  test("a worktree's .git pointer file is protected too", () => {
    const wt = join(base, "wt");
    mkdirSync(wt);
    writeFileSync(join(wt, ".git"), "gitdir: /elsewhere\n");
    const p = createPathPolicy({ cwd: wt, reasonixHome: state, env: {} });
    expect(p.checkWrite(".git")).toMatchObject({ allowed: false, code: "protected-path" });
    expect(p.checkWrite("src.ts").allowed).toBe(true);
  });

  test("git pointers and config of worktrees, submodules and nested repositories stay read-only, by name", () => {
    const p = policy();
    for (const t of [
      ".git/commondir", ".git/gitdir", ".git/config.worktree",
      ".git/worktrees/wt/commondir", ".git/worktrees/wt/gitdir", ".git/worktrees/wt/config.worktree", ".git/worktrees/wt",
      ".git/modules/sub/commondir", ".git/modules/a/modules/b/commondir", ".git/modules/a/modules/b/config.worktree",
      "vendor/lib/.git/config", "vendor/lib/.git/hooks/post-merge", "vendor/lib/.git/commondir", "deep/x/y/.git/modules/s/config",
      "src/.git", "src/.git/../.git/config",
      // Case-insensitive filesystems (macOS, Windows) and Windows' trailing dots name the same files.
      ".GIT/config", ".Git/HOOKS/pre-commit", ".git./config", "sub/.git /commondir",
    ]) {
      expect({ t, d: p.checkWrite(t) }).toMatchObject({ t, d: { allowed: false, code: "protected-path" } });
    }
    for (const t of [".git/worktrees/wt/HEAD", ".git/worktrees/wt/index", "vendor/lib/.git/objects/ab/cd", "src/git/config", "src/.github/config", "src/.gitmodules"]) {
      expect({ t, allowed: p.checkWrite(t).allowed }).toEqual({ t, allowed: true });
    }
  });

  test("a nested repository found by the scan is protected through its real git dir and cannot be removed", () => {
    const nested = join(ws, "nested-scan");
    mkdirSync(join(nested, "repo", ".git", "hooks"), { recursive: true });
    writeFileSync(join(nested, "repo", ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(nested, "repo", ".git", "config"), "[core]\n");
    // A `.git` that is a link: the name check cannot see through it, the scan can.
    mkdirSync(join(nested, "real-gitdir", "hooks"), { recursive: true });
    writeFileSync(join(nested, "real-gitdir", "config"), "[core]\n");
    mkdirSync(join(nested, "linked"));
    symlinkSync("../real-gitdir", join(nested, "linked", ".git"));
    const p = policy();
    rmSync(nested, { recursive: true, force: true });
    expect(p.protectedPaths.some((x) => x.path === join(nested, "repo", ".git", "config"))).toBe(true);
    expect(p.protectedPaths.some((x) => x.path === join(nested, "real-gitdir", "config"))).toBe(true);
    expect(p.protectedPaths.some((x) => x.path === join(nested, "real-gitdir", "commondir"))).toBe(true);
  });

  test("a bare repository inside a root is protected like a git dir, and its object store is not walked", () => {
    const bare = join(ws, "mirror.git");
    mkdirSync(join(bare, "objects", "ab"), { recursive: true });
    mkdirSync(join(bare, "refs", "heads"), { recursive: true });
    mkdirSync(join(bare, "hooks"));
    writeFileSync(join(bare, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(bare, "config"), "[core]\n\tbare = true\n");
    mkdirSync(join(bare, "objects", "not-walked", ".git"), { recursive: true });
    const p = policy();
    const scan = scanRepos([ws], (x) => x);
    rmSync(bare, { recursive: true, force: true });
    for (const t of ["mirror.git/config", "mirror.git/hooks/post-receive", "mirror.git/commondir"]) {
      expect({ t, d: p.checkWrite(t) }).toMatchObject({ t, d: { allowed: false, code: "protected-path" } });
    }
    expect(scan.repos.map((r) => r.dotGit)).toContain(bare);
    expect(scan.repos.map((r) => r.dotGit)).not.toContain(join(bare, "objects", "not-walked", ".git"));
  });

  test("the nested-repository scan is bounded in depth and directory count", () => {
    const deep = join(base, "deep-scan");
    let d = deep;
    for (let i = 0; i < 9; i++) d = join(d, `d${i}`);
    mkdirSync(join(d, ".git"), { recursive: true });
    mkdirSync(join(deep, "d0", ".git"), { recursive: true });
    mkdirSync(join(deep, "node_modules", "pkg", ".git"), { recursive: true });
    const full = scanRepos([deep], (x) => x, { maxDepth: 20, maxDirs: 1000 });
    expect(full.repos.map((r) => r.dotGit).sort()).toEqual([join(deep, "d0", ".git"), join(d, ".git")].sort());
    expect(full.truncated).toBe(false);
    const shallow = scanRepos([deep], (x) => x, { maxDepth: 3, maxDirs: 1000 });
    expect(shallow.repos.map((r) => r.dotGit)).toEqual([join(deep, "d0", ".git")]);
    expect(shallow.truncated).toBe(true);
    const few = scanRepos([deep], (x) => x, { maxDepth: 20, maxDirs: 2 });
    expect(few.truncated).toBe(true);
    expect(few.dirsVisited).toBe(2);
    rmSync(deep, { recursive: true, force: true });
  });

  test("forbid_read with ${VAR} hides file and dir, for reading and writing", () => {
    const p = policy({ config: { forbid_read: ["${OUT}/secret.txt", "${HOME}/outside/secret-dir"], allow_write: [outside] } });
    expect(p.checkRead(join(outside, "secret.txt"))).toMatchObject({ allowed: false, code: "forbidden-read" });
    expect(p.checkRead(join(outside, "secret-dir", "x"))).toMatchObject({ allowed: false, code: "forbidden-read" });
    expect(p.checkWrite(join(outside, "secret-dir", "x"))).toMatchObject({ allowed: false, code: "forbidden-read" });
    expect(p.checkRead("link-out/secret.txt")).toMatchObject({ allowed: false });
    expect(p.checkWrite(join(outside, "other"))).toMatchObject({ allowed: true });
  });

  test("$REASONIX_HOME is never readable nor writable, even inside a write root", () => {
    const p = createPathPolicy({ cwd: base, reasonixHome: state, env: { HOME: base } });
    expect(p.writeRoots).toEqual([base]);
    expect(p.checkRead(join(state, ".env"))).toMatchObject({ allowed: false, code: "reasonix-state" });
    expect(p.checkWrite(join(state, "sessions", "x"))).toMatchObject({ allowed: false, code: "reasonix-state" });
    expect(p.forbidRead).toContain(state);
  });

  test("refuses / and Reasonix state as write roots", () => {
    expect(() => policy({ extraWrite: ["/"] })).toThrow(/filesystem root/);
    expect(() => policy({ config: { allow_write: [join(state, "sessions")] } })).toThrow(/Reasonix state/);
    expect(() => policy({ extraWrite: ["../../../../../../../.."] })).toThrow(ReasonixError);
  });

  test("extra write roots resolve .. and links before use", () => {
    const p = policy({ extraWrite: ["src/../link-out"] });
    expect(p.writeRoots).toEqual([ws, outside]);
    expect(p.checkWrite(join(outside, "ok.txt")).allowed).toBe(true);
    expect(p.protectedPaths.some((x) => x.path === join(outside, ".git", "hooks"))).toBe(true);
  });
});

describe("the nested-repository scan deferred to the first decision that needs it (scan: \"deferred\", the engine's sessions)", () => {
  const nestedRepo = (dir: string) => {
    mkdirSync(join(dir, "repo", ".git", "hooks"), { recursive: true });
    writeFileSync(join(dir, "repo", ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(dir, "repo", ".git", "config"), "[core]\n");
  };

  test("the first write decision scans; what it found stays protected once the repository is gone", () => {
    const nested = join(ws, "nested-deferred");
    nestedRepo(nested);
    const p = policy({ scan: "deferred" });
    // Reading needs no scan; the first write decision makes it, before deciding.
    expect(p.checkRead("nested-deferred/repo/.git/config").allowed).toBe(true);
    expect(p.checkRemove("nested-deferred")).toMatchObject({ allowed: false, code: "protected-path" });
    rmSync(nested, { recursive: true, force: true });
    expect(policy().protectedPaths.some((x) => x.path.startsWith(nested))).toBe(false);
    expect(p.protectedPaths.some((x) => x.path === join(nested, "repo", ".git", "config"))).toBe(true);
    expect(p.checkWrite("nested-deferred/repo/.git/config")).toMatchObject({ allowed: false, code: "protected-path" });
    expect(p.checkRemove("nested-deferred")).toMatchObject({ allowed: false, code: "protected-path" });
  });

  test("protectedPaths (the bash sandbox's layout) scans too, and finds what a scan during construction finds", () => {
    const nested = join(ws, "nested-layout");
    nestedRepo(nested);
    try {
      expect(policy({ scan: "deferred" }).protectedPaths).toEqual(policy().protectedPaths);
      expect(policy({ scan: "deferred" }).protectedPaths.some((x) => x.path === join(nested, "repo", ".git", "hooks"))).toBe(true);
    } finally {
      rmSync(nested, { recursive: true, force: true });
    }
  });

  test("a link loop under a root fails the decision that needs the scan, never a silently weaker policy", () => {
    const loop = join(base, "loop-ws");
    mkdirSync(loop);
    symlinkSync("b", join(loop, "a"));
    symlinkSync("a", join(loop, "b"));
    symlinkSync("a", join(loop, ".git"));
    try {
      expect(() => createPathPolicy({ cwd: loop, reasonixHome: state, env: {} })).toThrow(ReasonixError);
      const p = createPathPolicy({ cwd: loop, reasonixHome: state, env: {}, scan: "deferred" });
      expect(() => p.checkWrite("x.txt")).toThrow(ReasonixError);
      expect(() => p.protectedPaths).toThrow(ReasonixError);
    } finally {
      rmSync(loop, { recursive: true, force: true });
    }
  });
});
