// A subagent's bash under the real OS sandbox (bubblewrap): a writer child
// declared with write_paths may change only those paths, whatever its shell
// command does; a read-only child's bash sees the workspace read-only even
// for commands the read-only classifier lets through (git status refreshing
// .git/index). Without the sandbox a confined writer's bash refuses to run.
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../sandbox/index.ts";
import { exists, text, world, type Turn, type World } from "./helpers.ts";

const status = await probeSandbox();
const noSandbox = process.platform !== "linux" || !status.available;
if (noSandbox) console.warn(`subagent sandbox tests skipped: no working bwrap (${status.cause ?? process.platform}; fix: ${status.fix ?? "install bubblewrap"})`);
const hasGit = spawnSync("git", ["--version"]).status === 0;
if (!hasGit) console.warn("subagent git test skipped: git is not installed");

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const childResults = (turns: Turn[], role: string): string[] => {
  const last = turns.filter((t) => t.role === role).at(-1)!;
  return last.req.body.messages.filter((m: { role: string }) => m.role === "tool").map((m: { content: string }) => m.content);
};

/** Parent delegates one task; the child runs the given bash commands in one round, then answers. */
function delegate(task: Record<string, unknown>, commands: string[]) {
  return (t: Turn) => {
    if (t.role === "parent") return t.results === 0 ? { toolCalls: [{ name: "task", arguments: { description: "child", prompt: "do it", ...task } }] } : text("done");
    if (t.results === 0) return { toolCalls: commands.map((command) => ({ name: "bash", arguments: { command } })) };
    return text("finished");
  };
}

describe.skipIf(noSandbox)("a writer child's bash is confined to its write_paths (bwrap)", () => {
  test("echo x > b/f from a child with write_paths [a/] leaves b/ untouched; a/ stays writable", async () => {
    w = await world(delegate({ write_paths: ["a/"] }, ["echo x > b/f", "echo y > a/f", "rm keep.txt", "echo z > new.txt", "echo t > $TMPDIR/t && cat $TMPDIR/t"]), { sandbox: { bash: "enforce" } });
    for (const d of ["a", "b"]) mkdirSync(join(w.sb.workspace, d));
    writeFileSync(join(w.sb.workspace, "keep.txt"), "keep\n");
    const p = await w.engine.createSession();
    expect(await p.submit("go")).toBe("done");
    expect(exists(join(w.sb.workspace, "b/f"))).toBe(false);
    expect(exists(join(w.sb.workspace, "new.txt"))).toBe(false);
    expect(readFileSync(join(w.sb.workspace, "keep.txt"), "utf8")).toBe("keep\n");
    expect(readFileSync(join(w.sb.workspace, "a/f"), "utf8")).toBe("y\n");
    const results = childResults(w.turns, "child");
    expect(results[0]).toMatch(/Read-only file system|Permission denied/);
    expect(results[1]).not.toContain("exit code");
    // Its own temp dir stays writable.
    expect(results[4]).toBe("t");
  });

  test("a write path that does not exist yet becomes writable once created (by the file tools)", async () => {
    w = await world((t) => {
      if (t.role === "parent") return t.results === 0 ? { toolCalls: [{ name: "task", arguments: { description: "child", prompt: "do it", write_paths: ["out/"] } }] } : text("done");
      if (t.results === 0) return { toolCalls: [{ name: "write_file", arguments: { path: "out/first.txt", content: "1\n" } }] };
      if (t.results === 1) return { toolCalls: [{ name: "bash", arguments: { command: "echo 2 > out/second.txt; echo 3 > elsewhere.txt" } }] };
      return text("finished");
    }, { sandbox: { bash: "enforce" } });
    const p = await w.engine.createSession();
    expect(await p.submit("go")).toBe("done");
    expect(readFileSync(join(w.sb.workspace, "out/second.txt"), "utf8")).toBe("2\n");
    expect(exists(join(w.sb.workspace, "elsewhere.txt"))).toBe(false);
  });

  test("the parent's own bash still writes anywhere in the workspace", async () => {
    w = await world((t) => (t.results === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "mkdir -p b && echo x > b/f" } }] } : text("done")), { sandbox: { bash: "enforce" } });
    const p = await w.engine.createSession();
    expect(await p.submit("go")).toBe("done");
    expect(readFileSync(join(w.sb.workspace, "b/f"), "utf8")).toBe("x\n");
  });
});

describe("a confined writer child without the sandbox", () => {
  test("[sandbox] bash = off: the child's bash refuses to run (cause and fix), nothing is written", async () => {
    w = await world(delegate({ write_paths: ["a/"] }, ["echo x > b/f"]), { sandbox: { bash: "off" } });
    mkdirSync(join(w.sb.workspace, "b"));
    const p = await w.engine.createSession();
    expect(await p.submit("go")).toBe("done");
    expect(exists(join(w.sb.workspace, "b/f"))).toBe(false);
    const [r] = childResults(w.turns, "child");
    expect(r).toContain("write_paths");
    expect(r).toContain("Fix:");
  });
});

describe.skipIf(noSandbox || !hasGit)("a read-only child's bash sees the workspace read-only (bwrap)", () => {
  test("git status cannot refresh .git/index; ls still works", async () => {
    w = await world(delegate({ read_only: true }, ["git status --short", "ls"]), { sandbox: { bash: "enforce" } });
    const ws = w.sb.workspace;
    const git = (...args: string[]) => spawnSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: ws, encoding: "utf8" });
    git("init", "-q");
    writeFileSync(join(ws, "f.txt"), "same\n");
    git("add", "f.txt");
    git("commit", "-q", "-m", "one");
    // Same content, new mtime: a writable git status would rewrite the index's stat data.
    const later = new Date(Date.now() + 5000);
    utimesSync(join(ws, "f.txt"), later, later);
    const before = readFileSync(join(ws, ".git/index"));
    const mtime = statSync(join(ws, ".git/index")).mtimeMs;
    const p = await w.engine.createSession();
    expect(await p.submit("go")).toBe("done");
    const results = childResults(w.turns, "child");
    expect(results[1]).toContain("f.txt");
    expect(statSync(join(ws, ".git/index")).mtimeMs).toBe(mtime);
    expect(readFileSync(join(ws, ".git/index")).equals(before)).toBe(true);
  });
});
