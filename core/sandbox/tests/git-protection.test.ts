// Git state that makes the host's git run code, attacked through both layers:
// the file tools (write_file, move_file) and sandboxed bash (real bwrap).
// After every attempt a real `git status` and `git commit` run on the host,
// in the repository the attack aimed at; the planted command would create a
// marker file. Real git, real repositories (submodule, linked worktree,
// nested clone), nothing mocked.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPathPolicy } from "../../policy/paths.ts";
import { moveFileTool } from "../../tools/builtin/move.ts";
import { writeFileTool } from "../../tools/builtin/write.ts";
import type { ToolContext } from "../../tools/types.ts";
import { createSessionTmpDir, probeSandbox, removeSessionTmpDir, runShell } from "../index.ts";

const hasGit = spawnSync("git", ["--version"]).status === 0;
const status = await probeSandbox();
const noBwrap = process.platform !== "linux" || !status.available;
if (!hasGit) console.warn("SKIPPED git protection suite: git is not installed");
if (noBwrap) console.warn(`SKIPPED git protection (bash half): no working bwrap (${status.cause ?? process.platform})`);

// Not under /tmp: the sandbox replaces host /tmp, and the marker must be a host path.
const scratchParent = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
let base: string;
let gitHome: string;
let sessionTmp: string;
let n = 0;

beforeAll(() => {
  if (!hasGit) return;
  base = realpathSync(mkdtempSync(join(scratchParent, "rx-gitprot-")));
  gitHome = join(base, "home");
  mkdirSync(gitHome);
  if (!noBwrap) sessionTmp = createSessionTmpDir();
});
afterAll(() => {
  if (sessionTmp) removeSessionTmpDir(sessionTmp);
  if (base) rmSync(base, { recursive: true, force: true });
});

/** git on the host, isolated from the user's global and system config. */
function git(cwd: string, ...args: string[]): { status: number | null; out: string } {
  const r = spawnSync("git", ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: gitHome, GIT_CONFIG_NOSYSTEM: "1", LANG: "C" },
    encoding: "utf8",
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function must(cwd: string, ...args: string[]): void {
  const r = git(cwd, ...args);
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.out}`);
}

interface Repo {
  root: string;
  ws: string;
  marker: string;
  /** A full copy of a git dir whose config runs the payload: the target of redirections. */
  evil: string;
  payloadConfig: string;
}

/**
 * A workspace repo with a submodule (absorbed: `dep/.git` is a file, its git
 * dir under .git/modules), a linked worktree inside it, and a nested
 * independent repository (vendor/lib).
 */
function makeRepo(): Repo {
  const root = join(base, `case-${++n}`);
  const ws = join(root, "ws");
  const upstream = join(root, "upstream");
  const marker = join(root, "PWNED");
  mkdirSync(ws, { recursive: true });
  must(root, "init", "-q", upstream);
  writeFileSync(join(upstream, "u.txt"), "u\n");
  must(upstream, "add", "u.txt");
  must(upstream, "commit", "-qm", "u");
  must(root, "init", "-q", ws);
  writeFileSync(join(ws, "a.txt"), "a\n");
  must(ws, "add", "a.txt");
  must(ws, "commit", "-qm", "a");
  must(ws, "submodule", "add", "-q", upstream, "dep");
  must(ws, "commit", "-qm", "sub");
  must(ws, "worktree", "add", "-q", "inner-wt");
  mkdirSync(join(ws, "vendor"));
  must(join(ws, "vendor"), "init", "-q", "lib");
  writeFileSync(join(ws, "vendor", "lib", "l.txt"), "l\n");
  must(join(ws, "vendor", "lib"), "add", "l.txt");
  must(join(ws, "vendor", "lib"), "commit", "-qm", "l");
  const evil = join(ws, "evilgit");
  cpSync(join(ws, ".git"), evil, { recursive: true });
  const payloadConfig = `[core]\n\tfsmonitor = "touch '${marker}'; false"\n\thooksPath = ${join(evil, "hooks")}\n`;
  writeFileSync(join(evil, "config"), `${readFileSync(join(evil, "config"), "utf8")}${payloadConfig}`);
  mkdirSync(join(evil, "hooks"), { recursive: true });
  writeFileSync(join(evil, "hooks", "pre-commit"), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
  return { root, ws, marker, evil, payloadConfig };
}

/** The user's next git commands on the host, in each repository the attack could reach. */
function hostGitRuns(r: Repo): void {
  for (const dir of [r.ws, join(r.ws, "dep"), join(r.ws, "inner-wt"), join(r.ws, "vendor", "lib"), join(r.ws, "src")]) {
    if (!existsSync(dir)) continue;
    git(dir, "status");
    writeFileSync(join(dir, `touched-${Date.now()}.txt`), "x\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "user commit");
  }
}

interface Attack {
  name: string;
  /** Shell command run in the workspace under bwrap. */
  bash: (r: Repo) => string;
  /** The same through the file tools: [path relative to ws, content]; moves as [from, to]. */
  files: (r: Repo) => { write?: [string, string][]; move?: [string, string][] };
}

const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

const attacks: Attack[] = [
  {
    name: ".git/commondir redirected to a planted git dir (the reported attack)",
    bash: () => "echo ../evilgit > .git/commondir",
    files: () => ({ write: [[".git/commondir", "../evilgit\n"]] }),
  },
  {
    name: ".git/config gains core.fsmonitor",
    bash: (r) => `printf %s ${q(r.payloadConfig)} >> .git/config`,
    files: (r) => ({ write: [[".git/config", `${readFileSync(join(r.ws, ".git", "config"), "utf8")}${r.payloadConfig}`]] }),
  },
  {
    name: ".git/hooks/pre-commit",
    bash: (r) => `printf '#!/bin/sh\\ntouch %s\\n' ${q(r.marker)} > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`,
    files: (r) => ({ write: [[".git/hooks/pre-commit", `#!/bin/sh\ntouch '${r.marker}'\n`]] }),
  },
  {
    name: "a linked worktree's commondir",
    bash: () => "echo ../../../evilgit > .git/worktrees/inner-wt/commondir",
    files: () => ({ write: [[".git/worktrees/inner-wt/commondir", "../../../evilgit\n"]] }),
  },
  {
    name: "a linked worktree's .git file",
    bash: (r) => `echo gitdir: ${q(r.evil)} > inner-wt/.git`,
    files: (r) => ({ write: [["inner-wt/.git", `gitdir: ${r.evil}\n`]] }),
  },
  {
    name: "a submodule's git config and commondir under .git/modules",
    bash: (r) => `printf %s ${q(r.payloadConfig)} >> .git/modules/dep/config; echo ../../../evilgit > .git/modules/dep/commondir`,
    files: (r) => ({ write: [[".git/modules/dep/config", r.payloadConfig], [".git/modules/dep/commondir", "../../../evilgit\n"]] }),
  },
  {
    name: "a submodule's .git gitlink file",
    bash: (r) => `echo gitdir: ${q(r.evil)} > dep/.git`,
    files: (r) => ({ write: [["dep/.git", `gitdir: ${r.evil}\n`]] }),
  },
  {
    name: "a nested repository's config, commondir and hooks",
    bash: (r) =>
      `printf %s ${q(r.payloadConfig)} >> vendor/lib/.git/config; echo ../../../evilgit > vendor/lib/.git/commondir; ` +
      `printf '#!/bin/sh\\ntouch %s\\n' ${q(r.marker)} > vendor/lib/.git/hooks/pre-commit; chmod +x vendor/lib/.git/hooks/pre-commit`,
    files: (r) => ({
      write: [["vendor/lib/.git/config", r.payloadConfig], ["vendor/lib/.git/commondir", "../../../evilgit\n"], ["vendor/lib/.git/hooks/pre-commit", `#!/bin/sh\ntouch '${r.marker}'\n`]],
    }),
  },
  {
    name: "a new .git file in a subdirectory",
    bash: (r) => `mkdir -p src && echo gitdir: ${q(r.evil)} > src/.git`,
    files: (r) => ({ write: [["src/.git", `gitdir: ${r.evil}\n`]] }),
  },
  {
    name: "a new nested repository with core.fsmonitor, added to the index as a gitlink",
    bash: (r) =>
      `mkdir -p src && cd src && git init -q && printf %s ${q(r.payloadConfig)} >> .git/config && ` +
      "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && cd .. && git add src 2>/dev/null; echo planted",
    files: (r) => ({ write: [["src/.git/config", r.payloadConfig]] }),
  },
  {
    name: "a new repository inside node_modules (which the scan skips), added as a gitlink",
    bash: (r) =>
      `mkdir -p node_modules/pkg && cd node_modules/pkg && git init -q && printf %s ${q(r.payloadConfig)} >> .git/config && ` +
      "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && cd ../.. && git add -f node_modules/pkg 2>/dev/null; echo planted",
    files: (r) => ({ write: [["node_modules/pkg/.git/config", r.payloadConfig]] }),
  },
  {
    name: "a new repository deeper than the scan bound, added as a gitlink",
    bash: (r) =>
      `mkdir -p a/b/c/d/e/f/g/h && (cd a/b/c/d/e/f/g/h && git init -q && printf %s ${q(r.payloadConfig)} >> .git/config && ` +
      "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x) && git add a/b/c/d/e/f/g/h 2>/dev/null; echo planted",
    files: (r) => ({ write: [["a/b/c/d/e/f/g/h/.git/config", r.payloadConfig]] }),
  },
  {
    name: "a planted git dir moved into place as .git",
    bash: () => "mkdir -p src && cp -r evilgit src/.git",
    files: () => ({ move: [["evilgit/config", "src/.git/config"], ["evilgit/HEAD", "src/.git"]] }),
  },
];

function toolContext(ws: string): ToolContext {
  return {
    workspace: ws,
    sessionId: "git-protection",
    tmpDir: join(ws, "..", "session-tmp"),
    signal: new AbortController().signal,
    beforeWrite: async () => {},
    readStamps: new Map(),
    config: { sandbox: {}, tools: {} },
    extraWriteRoots: [],
    emitTodo: () => {},
    pathPolicy: createPathPolicy({ cwd: ws, reasonixHome: join(ws, "..", "rxhome") }),
  };
}

describe.skipIf(!hasGit)("git state protection: file tools", () => {
  test("control: without protection the reported attack runs the planted command", () => {
    const r = makeRepo();
    writeFileSync(join(r.ws, ".git", "commondir"), "../evilgit\n");
    git(r.ws, "status");
    expect(existsSync(r.marker)).toBe(true);
  });

  for (const a of attacks) {
    test(`${a.name}: refused, and host git runs nothing`, async () => {
      const r = makeRepo();
      const ctx = toolContext(r.ws);
      const { write = [], move = [] } = a.files(r);
      for (const [path, content] of write) {
        const res = await writeFileTool.run({ path, content }, ctx);
        expect(res.ok).toBe(false);
        expect(res.output).toContain("protected");
      }
      for (const [source, destination] of move) {
        const res = await moveFileTool.run({ source, destination, overwrite: true }, ctx);
        expect(res.ok).toBe(false);
      }
      hostGitRuns(r);
      expect(existsSync(r.marker)).toBe(false);
    });
  }
});

describe.skipIf(!hasGit || noBwrap)("git state protection: sandboxed bash", () => {
  for (const a of attacks) {
    test(`${a.name}: blocked or undone, and host git runs nothing`, async () => {
      const r = makeRepo();
      const policy = createPathPolicy({ cwd: r.ws, reasonixHome: join(r.root, "rxhome") });
      const res = await runShell(a.bash(r), {
        policy,
        mode: "enforce",
        network: false,
        sessionTmpDir: sessionTmp,
        cwd: r.ws,
        timeoutMs: 20_000,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: gitHome, GIT_CONFIG_NOSYSTEM: "1" },
      });
      if (!res.ok) throw new Error(res.refusal.message);
      hostGitRuns(r);
      expect(existsSync(r.marker)).toBe(false);
    });
  }

  test("through the CLI (`reasonix sandbox run`): the reported attack leaves host git clean", () => {
    const r = makeRepo();
    const rxHome = join(r.root, "rxhome");
    mkdirSync(rxHome, { recursive: true });
    const cli = spawnSync(process.execPath, [join(import.meta.dir, "..", "..", "..", "cli", "main.ts"), "sandbox", "run", "--", "sh", "-c", "echo ../evilgit > .git/commondir; echo ran"], {
      cwd: r.ws,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: gitHome, REASONIX_HOME: rxHome, NO_COLOR: "1" },
      encoding: "utf8",
    });
    expect(cli.stdout).toContain("ran");
    expect(cli.stderr).toContain(join(r.ws, ".git", "commondir"));
    hostGitRuns(r);
    expect(existsSync(r.marker)).toBe(false);
  });

  test("a bare repository in the workspace: its hooks and config stay read-only (a later push runs nothing)", async () => {
    const r = makeRepo();
    must(r.ws, "clone", "-q", "--bare", r.ws, "mirror.git");
    const policy = createPathPolicy({ cwd: r.ws, reasonixHome: join(r.root, "rxhome") });
    const configBefore = readFileSync(join(r.ws, "mirror.git", "config"), "utf8");
    const cmd =
      `printf '#!/bin/sh\\ntouch %s\\n' ${q(r.marker)} > mirror.git/hooks/pre-receive; chmod +x mirror.git/hooks/pre-receive; ` +
      `printf %s ${q(r.payloadConfig)} >> mirror.git/config; echo ../evilgit > mirror.git/commondir`;
    const res = await runShell(cmd, {
      policy, mode: "enforce", network: false, sessionTmpDir: sessionTmp, cwd: r.ws, timeoutMs: 20_000,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: gitHome, GIT_CONFIG_NOSYSTEM: "1" },
    });
    if (!res.ok) throw new Error(res.refusal.message);
    git(r.ws, "push", "-q", join(r.ws, "mirror.git"), "HEAD:refs/heads/pushed");
    git(join(r.ws, "mirror.git"), "log", "-1");
    expect(existsSync(r.marker)).toBe(false);
    expect(readFileSync(join(r.ws, "mirror.git", "config"), "utf8")).toBe(configBefore);
    expect(existsSync(join(r.ws, "mirror.git", "commondir"))).toBe(false);
  });

  test("a deep repository the command did not touch keeps its config when the index changes", async () => {
    const r = makeRepo();
    const deep = join(r.ws, "a", "b", "c", "d", "e", "f", "g", "h");
    mkdirSync(deep, { recursive: true });
    must(deep, "init", "-q");
    must(deep, "commit", "-q", "--allow-empty", "-m", "deep");
    must(r.ws, "add", join("a", "b", "c", "d", "e", "f", "g", "h"));
    must(r.ws, "commit", "-qm", "deep gitlink");
    await Bun.sleep(1100); // the state check allows 1 s of clock slack
    const policy = createPathPolicy({ cwd: r.ws, reasonixHome: join(r.root, "rxhome") });
    const res = await runShell("echo x > new.txt && git add -A && echo staged", {
      policy, mode: "enforce", network: false, sessionTmpDir: sessionTmp, cwd: r.ws, timeoutMs: 20_000,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: gitHome, GIT_CONFIG_NOSYSTEM: "1" },
    });
    if (!res.ok) throw new Error(res.refusal.message);
    expect(res.output).toContain("staged");
    expect(res.violations).toEqual([]);
    expect(existsSync(join(deep, ".git", "config"))).toBe(true);
  });

  test("a repository deeper than the scan that was there before: bash cannot change its config or hooks (the planted-state watch knows it)", async () => {
    const r = makeRepo();
    const deep = join(r.ws, "a", "b", "c", "d", "e", "f", "g", "h");
    mkdirSync(deep, { recursive: true });
    must(deep, "init", "-q");
    writeFileSync(join(deep, "d.txt"), "d\n");
    must(deep, "add", "d.txt");
    must(deep, "commit", "-qm", "deep");
    const policy = createPathPolicy({ cwd: r.ws, reasonixHome: join(r.root, "rxhome") });
    const cmd =
      `printf %s ${q(r.payloadConfig)} >> a/b/c/d/e/f/g/h/.git/config; ` +
      `printf '#!/bin/sh\\ntouch %s\\n' ${q(r.marker)} > a/b/c/d/e/f/g/h/.git/hooks/pre-commit; chmod +x a/b/c/d/e/f/g/h/.git/hooks/pre-commit; echo done`;
    const res = await runShell(cmd, {
      policy, mode: "enforce", network: false, sessionTmpDir: sessionTmp, cwd: r.ws, timeoutMs: 20_000, watchGit: true,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: gitHome, GIT_CONFIG_NOSYSTEM: "1" },
    });
    if (!res.ok) throw new Error(res.refusal.message);
    expect(res.output).toContain("done");
    git(deep, "status");
    writeFileSync(join(deep, "e.txt"), "e\n");
    git(deep, "add", "e.txt");
    git(deep, "commit", "-qm", "user commit");
    expect(existsSync(r.marker)).toBe(false);
  });

  test("a repository created by the command stays usable, minus what makes git run code", async () => {
    const r = makeRepo();
    const policy = createPathPolicy({ cwd: r.ws, reasonixHome: join(r.root, "rxhome") });
    const res = await runShell("git init -q fresh && cd fresh && echo x > f && git add f && git -c user.email=a@b -c user.name=a commit -qm f && echo ok", {
      policy, mode: "enforce", network: false, sessionTmpDir: sessionTmp, cwd: r.ws, timeoutMs: 20_000,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: gitHome, GIT_CONFIG_NOSYSTEM: "1" },
    });
    if (!res.ok) throw new Error(res.refusal.message);
    expect(res.output).toContain("ok");
    const moved = res.violations.map((v) => v.path).sort();
    expect(moved).toContain(join(r.ws, "fresh", ".git", "config"));
    expect(moved).toContain(join(r.ws, "fresh", ".git", "hooks"));
    expect(git(join(r.ws, "fresh"), "log", "--oneline").out).toContain("f");
  });
});
