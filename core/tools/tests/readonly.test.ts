import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { builtinTools } from "../builtin/index.ts";
import { classifyReadOnlyCommand, readOnlyRegistry, readOnlyTools } from "../readonly.ts";
import { ToolRegistry } from "../registry.ts";
import type { ToolDefinition } from "../types.ts";
import { fixture, type Fixture } from "./helpers.ts";

let fx: Fixture | undefined;
afterEach(() => fx?.cleanup());

const fake = (name: string, kind: ToolDefinition["kind"]): ToolDefinition => ({
  name, kind, description: name, inputSchema: { type: "object" }, summarize: () => name,
  run: async () => ({ ok: true, output: "ran" }),
});

describe("readOnlyTools", () => {
  test("keeps readers and a wrapped bash; drops writers, todo, meta, external MCP and (by default) network tools", () => {
    const kept = readOnlyTools([...builtinTools]);
    const names = kept.map((t) => t.name);
    for (const n of ["bash", "docs", "glob", "grep", "ls", "read_file"]) expect(names).toContain(n);
    for (const n of ["write_file", "edit_file", "multi_edit", "move_file", "todo_write", "web_fetch"]) expect(names).not.toContain(n);
    // Every other built-in that stays is a reader.
    expect(kept.every((t) => t.kind === "read" || t.name === "bash")).toBe(true);
    const withNet = readOnlyTools([...builtinTools], { network: true }).map((t) => t.name);
    expect(withNet).toContain("web_fetch");
    const mcp = readOnlyTools([fake("mcp__srv__lookup", "read"), fake("mcp__srv__delete", "external"), fake("task", "meta")]);
    expect(mcp.map((t) => t.name)).toEqual(["mcp__srv__lookup"]);
  });

  test("the registry form lists the same tools and wrapping twice changes nothing", () => {
    const reg = new ToolRegistry();
    for (const t of builtinTools) reg.register(t);
    const ro = readOnlyRegistry(reg);
    expect(ro.list().map((t) => t.name)).toEqual(readOnlyTools([...builtinTools]).map((t) => t.name));
    const bash = ro.get("bash")!;
    expect(readOnlyTools([bash])[0]).toBe(bash);
  });

  test("the wrapped bash refuses a writing command before running anything, and runs a reading one", async () => {
    fx = fixture({ sandbox: { bash: "off" } });
    const bash = readOnlyTools([...builtinTools]).find((t) => t.name === "bash")!;
    expect(bash.kind).toBe("bash");
    const w = await fx.run(bash, { command: "touch made.txt" });
    expect(w.ok).toBe(false);
    expect(w.output).toContain("read-only");
    expect(existsSync(join(fx.ws, "made.txt"))).toBe(false);
    const r = await fx.run(bash, { command: "echo hello > made.txt" });
    expect(r.ok).toBe(false);
    expect(existsSync(join(fx.ws, "made.txt"))).toBe(false);
    fx.write("a.txt", "alpha\n");
    const ok = await fx.run(bash, { command: "cat a.txt | wc -l" });
    expect(ok.ok).toBe(true);
    expect(ok.output.trim()).toBe("1");
  });

  test("read-only git commands take no optional lock: `git status` leaves .git/index untouched (GIT_OPTIONAL_LOCKS=0)", async () => {
    fx = fixture({ sandbox: { bash: "off" } });
    const git = (...args: string[]) => {
      const r = Bun.spawnSync(["git", "-C", fx!.ws, "-c", "user.email=t@t", "-c", "user.name=t", ...args], { stderr: "pipe" });
      if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
    };
    fx.write("a.txt", "alpha\n");
    git("init", "-q");
    git("add", "a.txt");
    git("commit", "-qm", "one");
    // A changed mtime makes the index stale: a plain `git status` would refresh and rewrite it.
    const index = join(fx.ws, ".git/index");
    const before = statSync(index);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(fx.ws, "a.txt"), later, later);
    const bash = readOnlyTools([...builtinTools]).find((t) => t.name === "bash")!;
    const r = await fx.run(bash, { command: "git status --short" });
    expect(r.ok).toBe(true);
    const after = statSync(index);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.ino).toBe(before.ino);
  });

  test("a workspace program named like a reader (./ls, bin/cat) is refused: the repository chooses what it does", async () => {
    fx = fixture({ sandbox: { bash: "off" } });
    const bash = readOnlyTools([...builtinTools]).find((t) => t.name === "bash")!;
    fx.write("ls", "#!/bin/sh\ntouch pwned.txt\n");
    fx.write("bin/cat", "#!/bin/sh\ntouch pwned.txt\n");
    chmodSync(join(fx.ws, "ls"), 0o755);
    chmodSync(join(fx.ws, "bin/cat"), 0o755);
    for (const command of ["./ls", "bin/cat a", "cd bin && ./cat"]) {
      const r = await fx.run(bash, { command });
      expect(r.ok).toBe(false);
      expect(r.output).toContain("read-only");
    }
    expect(existsSync(join(fx.ws, "pwned.txt"))).toBe(false);
  });
});

describe("classifyReadOnlyCommand", () => {
  const accepted = [
    "ls -la", "cat a.txt", "grep -rn foo src | head -20", "git status", "git log --oneline -5", "git diff HEAD~1 -- a.ts",
    "git --no-pager log -1", "git -P show HEAD", "git branch", "git branch -a -v", "git branch --list 'feat*'", "git tag -l", "git stash list",
    "git config --get user.name", "find . -name '*.ts'", "wc -l *.ts", "sort names.txt", "uniq a.txt", "rg -n TODO",
    "cd src && ls", "date", "tree -L 2", "git remote -v", "echo a && echo b", "/bin/ls", "/usr/bin/git status",
  ];
  const refused = [
    "touch x", "rm -rf x", "echo hi > x", "cat a >> b", "tee x", "mv a b", "cp a b", "mkdir d", "sed -i s/a/b/ f",
    "awk '{print}' f", "find . -delete", "find . -exec rm {} ;", "xargs rm", "env X=1 ls", "X=1 ls", "ls $(pwd)",
    "echo `id`", "python3 -c 'print(1)'", "bash -c ls", "sort -o out in", "sort -ro out in", "tree -o out", "date -s now",
    "uniq in out", "git commit -m x", "git checkout -- a", "git branch newbranch", "git branch -D main", "git tag v1",
    "git stash", "git config user.name x", "git diff --output=x", "git -c alias.x=!sh x", "git grep -O vim foo",
    "git reset --hard", "git push", "git clean -fdx", "curl https://example.com", "npm install", "sleep 100 &",
    "rg --pre sh foo", "rg * foo", "file -C -m x", "ls; rm x", "cat a | sh", "", "ls \"$HOME\"", "echo ${X}",
    "{ ls; }", "for f in a; do rm $f; done", "/usr/bin/../../tmp/ls", "./ls", "bin/cat a", "sub/git status", "/tmp/x/ls", "../ls -la",
    // git naming another directory, repository or config reads (and runs) that config (issue 25, item 5).
    "git -C sub show HEAD", "git -C evil status", "git --git-dir=evil status", "git --git-dir evil log", "git --work-tree=. status",
    "git --namespace=x log", "git --exec-path=/x status", "git --config-env=core.fsmonitor=X status", "git --bare log",
    "cd evil && git status", "cd evil; git log", "GIT_DIR=evil git status", "git diff --ext-diff", "git log -p --textconv",
    "git config --file=evil/config --list", "git config -f evil/config --get core.fsmonitor",
  ];
  for (const c of accepted) test(`accepts ${JSON.stringify(c)}`, () => expect(classifyReadOnlyCommand(c)).toEqual({ ok: true }));
  for (const c of refused) {
    test(`refuses ${JSON.stringify(c)}`, () => {
      const v = classifyReadOnlyCommand(c);
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.reason.length).toBeGreaterThan(5);
    });
  }
});
