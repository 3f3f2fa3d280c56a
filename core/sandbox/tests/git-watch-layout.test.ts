// The sandbox's layout takes the repositories to mount read-only from the
// planted-state watch instead of a second walk of the workspace (issue 35).
// A repository the user makes between two commands must then still be
// known to the second: its hooks stay read-only even when the command
// rewrites one in place (which changes no directory the watch looks at).
// Real bwrap, real git; the hook would create a marker when git runs it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPathPolicy } from "../../policy/paths.ts";
import { createSessionTmpDir, probeSandbox, removeSessionTmpDir, runShell } from "../index.ts";
import { resetGitGuard } from "../git-guard.ts";

const hasGit = spawnSync("git", ["--version"]).status === 0;
const status = await probeSandbox();
const skip = !hasGit || process.platform !== "linux" || !status.available;
if (skip) console.warn(`SKIPPED git watch layout: ${!hasGit ? "git is not installed" : `no working bwrap (${status.cause ?? process.platform})`}`);

// Not under /tmp: the sandbox replaces host /tmp, and the marker must be a host path.
const scratchParent = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
let base: string;
let sessionTmp: string;
beforeAll(() => {
  if (skip) return;
  base = realpathSync(mkdtempSync(join(scratchParent, "rx-gitwatch-layout-")));
  sessionTmp = createSessionTmpDir();
});
afterAll(() => {
  if (sessionTmp) removeSessionTmpDir(sessionTmp);
  if (base) rmSync(base, { recursive: true, force: true });
  resetGitGuard();
});

const gitEnv = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(base, "home"), GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@u", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@u" });
function git(cwd: string, ...args: string[]): number | null {
  return spawnSync("git", args, { cwd, env: gitEnv() }).status;
}

describe.skipIf(skip)("sandbox layout from the planted-state watch", () => {
  test("a repository made between two commands: the second cannot rewrite its existing hook in place", async () => {
    const ws = join(base, "ws");
    mkdirSync(join(base, "home"), { recursive: true });
    mkdirSync(ws, { recursive: true });
    const marker = join(base, "PWNED");
    const policy = createPathPolicy({ cwd: ws, reasonixHome: join(base, "rxhome") });
    const run = (command: string) => runShell(command, { policy, mode: "enforce", network: false, sessionTmpDir: sessionTmp, cwd: ws, timeoutMs: 20_000, watchGit: true, env: gitEnv() });
    // The first command starts the watch (its walk finds no repository).
    const first = await run("echo first");
    if (!first.ok) throw new Error(first.refusal.message);
    // The user makes a repository with a harmless pre-commit hook.
    const sub = join(ws, "sub");
    mkdirSync(sub);
    expect(git(sub, "init", "-q")).toBe(0);
    writeFileSync(join(sub, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    writeFileSync(join(sub, "a.txt"), "a\n");
    expect(git(sub, "add", "a.txt")).toBe(0);
    expect(git(sub, "commit", "-qm", "user")).toBe(0);
    // Made before the command started, beyond the checks' clock slack (1 s), so it is the user's, not the command's.
    await Bun.sleep(1100);
    // The second command rewrites that hook in place (same file, no new entry).
    const second = await run(`printf '#!/bin/sh\\ntouch %s\\n' '${marker}' > sub/.git/hooks/pre-commit; echo tried`);
    if (!second.ok) throw new Error(second.refusal.message);
    expect(second.output).toContain("tried");
    writeFileSync(join(sub, "b.txt"), "b\n");
    git(sub, "add", "b.txt");
    git(sub, "commit", "-qm", "user again");
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(sub, ".git", "hooks", "pre-commit"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
  }, 60_000);
});
