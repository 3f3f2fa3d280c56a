import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import type { PermissionMode } from "../../engine/types.ts";
import { ReasonixError } from "../../errors.ts";
import { createPathPolicy } from "../../policy/paths.ts";
import { bashTool } from "../../tools/builtin/bash.ts";
import { editFileTool, multiEditTool } from "../../tools/builtin/edit.ts";
import { lsTool } from "../../tools/builtin/ls.ts";
import { moveFileTool } from "../../tools/builtin/move.ts";
import { readFileTool } from "../../tools/builtin/read.ts";
import { todoWriteTool } from "../../tools/builtin/todo.ts";
import { writeFileTool } from "../../tools/builtin/write.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { Permissions, type PermissionsOptions } from "../index.ts";

const ws = realpathSync(mkdtempSync(join(tmpdir(), "rx-perm-ws-")));
const outside = realpathSync(mkdtempSync(join(tmpdir(), "rx-perm-out-")));
mkdirSync(join(ws, "docs"));
mkdirSync(join(ws, "src"));
mkdirSync(join(ws, "secrets"));
writeFileSync(join(ws, "docs", "a.md"), "# a\n");
writeFileSync(join(ws, "src", "a.ts"), "x\n");
writeFileSync(join(ws, "secrets", "key"), "k\n");
symlinkSync("../src/a.ts", join(ws, "docs", "link-to-src.ts"));
symlinkSync(outside, join(ws, "docs", "out"));
afterAll(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const perms = (o: Partial<PermissionsOptions> = {}) =>
  new Permissions({ mode: "ask", allow: [], ask: [], deny: [], headless: false, workspace: ws, ...o });

const mcpWriter: ToolDefinition = {
  name: "mcp__db__drop", description: "", inputSchema: {}, kind: "write",
  summarize: () => "drop", run: async () => ({ ok: true, output: "" }),
};

describe("mode fallback for every kind of tool", () => {
  type Row = { mode: PermissionMode; read: string; meta: string; write: string; bash: string; nested: string };
  const rows: Row[] = [
    { mode: "ask", read: "allow", meta: "allow", write: "ask", bash: "ask", nested: "ask" },
    { mode: "auto", read: "allow", meta: "allow", write: "allow", bash: "allow", nested: "ask" },
    { mode: "yolo", read: "allow", meta: "allow", write: "allow", bash: "allow", nested: "allow" },
    { mode: "plan", read: "allow", meta: "allow", write: "deny", bash: "ask", nested: "ask" },
    { mode: "read-only", read: "allow", meta: "allow", write: "deny", bash: "deny", nested: "deny" },
  ];
  const calls: [keyof Omit<Row, "mode">, ToolDefinition, unknown][] = [
    ["read", readFileTool, { path: "docs/a.md" }],
    ["meta", todoWriteTool, { todos: [] }],
    ["write", editFileTool, { path: "src/a.ts", old_string: "x", new_string: "y" }],
    ["bash", bashTool, { command: "npm test" }],
    ["nested", bashTool, { command: "echo $(id)" }],
  ];
  for (const row of rows) {
    for (const [kind, tool, input] of calls) {
      test(`${row.mode} / ${kind} → ${row[kind]}`, () => {
        expect(perms({ mode: row.mode }).check(tool, input).action).toBe(row[kind] as "allow");
      });
      test(`${row.mode} / ${kind} headless → ${row[kind] === "ask" ? "deny" : row[kind]}`, () => {
        const d = perms({ mode: row.mode, headless: true }).check(tool, input);
        expect(d.action).toBe((row[kind] === "ask" ? "deny" : row[kind]) as "allow");
      });
    }
  }
  test("setMode: approving a plan unblocks writers", () => {
    const p = perms({ mode: "plan" });
    const input = { path: "src/a.ts", content: "y" };
    expect(p.check(writeFileTool, input).reason).toContain("plan mode");
    p.setMode("auto");
    expect(p.mode).toBe("auto");
    expect(p.check(writeFileTool, input).action).toBe("allow");
  });
});

describe("rule order: deny > ask > allow > fallback", () => {
  const input = { command: "npm test" };
  test("a rule in all three lists denies", () => {
    const d = perms({ mode: "yolo", allow: ["Bash(npm test)"], ask: ["Bash(npm test)"], deny: ["Bash(npm test)"] }).check(bashTool, input);
    expect(d).toMatchObject({ action: "deny" });
    expect(d.reason).toContain("Bash(npm test)");
  });
  test("ask beats allow", () => {
    expect(perms({ mode: "auto", allow: ["Bash(npm:*)"], ask: ["Bash(npm test)"] }).check(bashTool, input).action).toBe("ask");
  });
  test("allow beats the ask-mode fallback", () => {
    const d = perms({ allow: ["Bash(npm test)"] }).check(bashTool, input);
    expect(d.action).toBe("allow");
    expect(d.reason).toContain("Bash(npm test)");
  });
  test("yolo skips ask rules but never deny rules", () => {
    const p = perms({ mode: "yolo", ask: ["Bash(npm test)"], deny: ["Bash(rm:*)"] });
    expect(p.check(bashTool, input).action).toBe("allow");
    expect(p.check(bashTool, { command: "rm -r build" }).action).toBe("deny");
  });
  test("deny wins over plan/read-only blocks (its message is the more precise one)", () => {
    const d = perms({ mode: "read-only", deny: ["Edit(src/**)"] }).check(editFileTool, { path: "src/a.ts" });
    expect(d.reason).toContain("Edit(src/**)");
  });
  test("plan and read-only block writers even when an allow rule matches", () => {
    expect(perms({ mode: "plan", allow: ["Edit"] }).check(editFileTool, { path: "src/a.ts" }).action).toBe("deny");
    expect(perms({ mode: "read-only", allow: ["Bash"] }).check(bashTool, input).action).toBe("deny");
  });
  test("bare tool names and families", () => {
    expect(perms({ allow: ["write_file"] }).check(writeFileTool, { path: "x" }).action).toBe("allow");
    expect(perms({ allow: ["write_file"] }).check(editFileTool, { path: "x" }).action).toBe("ask");
    expect(perms({ allow: ["Edit"] }).check(moveFileTool, { source: "a", destination: "b" }).action).toBe("allow");
    expect(perms({ allow: ["mcp__db__drop"] }).check(mcpWriter, {}).action).toBe("allow");
    expect(perms({ mode: "yolo", deny: ["todo_write"] }).check(todoWriteTool, { todos: [] }).action).toBe("deny");
    expect(perms({ allow: ["Bash"] }).check(bashTool, input).action).toBe("allow");
    expect(perms({ allow: ["Bash(*)"] }).check(bashTool, { command: "echo $(id)" }).action).toBe("ask");
  });
  test("glob bash rules", () => {
    const p = perms({ allow: ["Bash(git log *)"], deny: ["Bash(rm -rf*)"], mode: "yolo" });
    expect(p.check(bashTool, { command: "rm -rfv x" }).action).toBe("deny");
    const q = perms({ allow: ["Bash(git log *)"] });
    expect(q.check(bashTool, { command: "git log --oneline" }).action).toBe("allow");
    expect(q.check(bashTool, { command: "git push" }).action).toBe("ask");
  });
});

describe("path-scoped rules", () => {
  test("Edit(docs/**) covers files under docs only", () => {
    const p = perms({ allow: ["Edit(docs/**)"] });
    expect(p.check(editFileTool, { path: "docs/a.md" }).action).toBe("allow");
    expect(p.check(multiEditTool, { path: "docs/new/b.md", edits: [] }).action).toBe("allow");
    expect(p.check(editFileTool, { path: "src/a.ts" }).action).toBe("ask");
    expect(p.check(editFileTool, { path: "docs/../src/a.ts" }).action).toBe("ask");
  });
  test("Write(...) and Edit(...) both cover every file writer", () => {
    expect(perms({ deny: ["Write(src/**)"] }).check(editFileTool, { path: "src/a.ts" }).action).toBe("deny");
    expect(perms({ deny: ["Edit(src/**)"] }).check(writeFileTool, { path: "src/new.ts" }).action).toBe("deny");
  });
  test("a pattern without a slash matches at any depth", () => {
    const p = perms({ allow: ["Edit(*.md)"] });
    expect(p.check(editFileTool, { path: "docs/a.md" }).action).toBe("allow");
    expect(p.check(editFileTool, { path: "src/a.ts" }).action).toBe("ask");
  });
  test("absolute and ~ patterns", () => {
    expect(perms({ allow: [`Edit(${ws}/src/*)`] }).check(editFileTool, { path: "src/a.ts" }).action).toBe("allow");
    expect(perms({ deny: ["Read(~/.ssh/**)"] }).check(readFileTool, { path: `${process.env.HOME}/.ssh/id_ed25519` }).action).toBe("deny");
  });
  test("move_file must have both ends covered to be allowed", () => {
    const p = perms({ allow: ["Edit(docs/**)"] });
    expect(p.check(moveFileTool, { source: "docs/a.md", destination: "docs/b.md" }).action).toBe("allow");
    expect(p.check(moveFileTool, { source: "docs/a.md", destination: "src/b.md" }).action).toBe("ask");
  });
  test("Read deny covers the directory itself and files below", () => {
    const p = perms({ deny: ["Read(secrets/**)"] });
    expect(p.check(readFileTool, { path: "secrets/key" }).action).toBe("deny");
    expect(p.check(lsTool, { path: "secrets" }).action).toBe("deny");
    expect(p.check(readFileTool, { path: "docs/a.md" }).action).toBe("allow");
  });
  test("an allow rule does not follow a symlink out of its scope; a deny rule catches it", () => {
    const policy = createPathPolicy({ cwd: ws, reasonixHome: join(outside, "home") });
    const allow = perms({ allow: ["Edit(docs/**)"], pathPolicy: policy });
    expect(allow.check(editFileTool, { path: "docs/link-to-src.ts" }).action).toBe("ask");
    const deny = perms({ mode: "yolo", deny: ["Edit(src/**)"], pathPolicy: policy });
    expect(deny.check(editFileTool, { path: "docs/link-to-src.ts" }).action).toBe("deny");
  });
  test("`..` after a symlink is judged where the kernel lands, not where the text points", () => {
    // docs/to-src-sub/../a.ts reads as docs/a.ts, but opens src/sub/../a.ts = src/a.ts.
    mkdirSync(join(ws, "src", "sub"), { recursive: true });
    mkdirSync(join(ws, "secrets", "sub"), { recursive: true });
    symlinkSync("../src/sub", join(ws, "docs", "to-src-sub"));
    symlinkSync("../secrets/sub", join(ws, "docs", "to-secrets-sub"));
    const policy = createPathPolicy({ cwd: ws, reasonixHome: join(outside, "home") });
    expect(policy.resolve("docs/to-src-sub/../a.ts")).toBe(join(ws, "src", "a.ts"));
    const allow = perms({ allow: ["Edit(docs/**)"], pathPolicy: policy });
    expect(allow.check(editFileTool, { path: "docs/to-src-sub/../a.ts" }).action).toBe("ask");
    expect(allow.check(editFileTool, { path: "docs/a.md" }).action).toBe("allow");
    const deny = perms({ mode: "yolo", deny: ["Edit(src/**)", "Read(secrets/**)"], pathPolicy: policy });
    expect(deny.check(editFileTool, { path: "docs/to-src-sub/../a.ts" }).action).toBe("deny");
    expect(deny.check(readFileTool, { path: "docs/to-secrets-sub/../key" }).action).toBe("deny");
    // Without a path policy the rules still resolve links the same way.
    const bare = perms({ mode: "yolo", deny: ["Edit(src/**)"] });
    expect(bare.check(editFileTool, { path: "docs/to-src-sub/../a.ts" }).action).toBe("deny");
  });
  test("a bare ~ is the home directory to rules, as it is to the tools", () => {
    const p = perms({ mode: "yolo", deny: ["Read(~/**)"] });
    expect(p.check(lsTool, { path: "~" }).action).toBe("deny");
    expect(p.check(lsTool, { path: "~/x" }).action).toBe("deny");
    expect(p.check(lsTool, { path: "docs" }).action).toBe("allow");
  });
  test("writers aimed outside the write roots are refused up front with the flag that would allow them", () => {
    const policy = createPathPolicy({ cwd: ws, reasonixHome: join(outside, "home") });
    const p = perms({ mode: "yolo", pathPolicy: policy });
    for (const path of ["docs/out/x.txt", "../x.txt", `${outside}/y.txt`]) {
      const d = p.check(writeFileTool, { path, content: "" });
      expect(d.action).toBe("deny");
      expect(d.reason).toContain("--add-dir");
    }
  });
});

describe("headless runs fail closed with a way forward", () => {
  test("fallback ask names --auto and the rule", () => {
    const d = perms({ headless: true }).check(bashTool, { command: "npm run test:unit" });
    expect(d.action).toBe("deny");
    expect(d.reason).toContain("--auto");
    expect(d.reason).toContain("Bash(npm run test:*)");
    expect(d.reason).toContain("headless");
  });
  test("an explicit ask rule says --auto will not help", () => {
    const d = perms({ mode: "auto", headless: true, ask: ["Edit(src/**)"] }).check(editFileTool, { path: "src/a.ts" });
    expect(d.action).toBe("deny");
    expect(d.reason).toContain("Edit(src/**)");
    expect(d.reason).toContain("requires a human");
  });
  test("nested bash in auto mode names the exact rule and yolo", () => {
    const d = perms({ mode: "auto", headless: true }).check(bashTool, { command: "echo $(date)" });
    expect(d.action).toBe("deny");
    expect(d.reason).toContain("command or process substitution");
    expect(d.reason).toContain("Bash=echo $(date)");
    expect(d.reason).toContain("yolo");
  });
  test("an exact rule lets a nested command through headless", () => {
    const d = perms({ mode: "auto", headless: true, allow: ["Bash=echo $(date)"] }).check(bashTool, { command: "echo $(date)" });
    expect(d.action).toBe("allow");
  });
});

describe("suggested rules round-trip through grant", () => {
  const cases: [ToolDefinition, unknown, string][] = [
    [bashTool, { command: "npm run test:unit -- -t foo" }, "Bash(npm run test:*)"],
    [bashTool, { command: "go test ./..." }, "Bash(go test:*)"],
    [bashTool, { command: "rm -rf build" }, "Bash(rm -rf build)"],
    [bashTool, { command: "ls *.ts" }, "Bash=ls *.ts"],
    [bashTool, { command: "make && ./run 'a b'" }, "Bash=make && ./run 'a b'"],
    [bashTool, { command: "python3 -c 'print(1)'" }, "Bash=python3 -c 'print(1)'"],
    [editFileTool, { path: "docs/a.md" }, "Edit(docs/a.md)"],
    [moveFileTool, { source: "a", destination: "b" }, "move_file"],
  ];
  for (const [tool, input, rule] of cases) {
    test(`${tool.name} ${JSON.stringify(input)} → ${rule}`, () => {
      const p = perms({ headless: true });
      const before = p.check(tool, input);
      expect(before.action).toBe("deny");
      expect(before.suggestedRule).toBe(rule);
      p.grant(before.suggestedRule, "session");
      expect(p.check(tool, input).action).toBe("allow");
      expect(p.rules().session).toContain(rule);
    });
  }
  test("a session grant does not leak into another Permissions object", () => {
    const a = perms();
    a.grant("Bash(npm test)", "session");
    expect(perms().check(bashTool, { command: "npm test" }).action).toBe("ask");
  });
});

describe("persisted grants edit the project reasonix.toml in place", () => {
  const fresh = (text: string | null) => {
    const dir = mkdtempSync(join(ws, "proj-"));
    const path = join(dir, "reasonix.toml");
    if (text !== null) writeFileSync(path, text);
    return { path, p: perms({ projectConfigPath: path }) };
  };
  test("multi-line allow list keeps comments and layout", () => {
    const text = `# project settings\ndefault_model = "x"\n\n[permissions]\nmode = "ask" # default\nallow = [\n  "Bash(npm test)", # tests\n  # keep this comment\n  "Edit(docs/**)"\n]\ndeny = ["Bash(rm -rf*)"]\n\n[sandbox]\nnetwork = false\n`;
    const { path, p } = fresh(text);
    p.grant("Bash(go test:*)", "persist_project");
    const after = readFileSync(path, "utf8");
    expect(after).toContain("# project settings");
    expect(after).toContain("# keep this comment");
    expect(after).toContain("# tests");
    expect(after).toContain('mode = "ask" # default');
    const data = parse(after) as { permissions: { allow: string[]; deny: string[] }; sandbox: { network: boolean } };
    expect(data.permissions.allow).toEqual(["Bash(npm test)", "Edit(docs/**)", "Bash(go test:*)"]);
    expect(data.permissions.deny).toEqual(["Bash(rm -rf*)"]);
    expect(data.sandbox.network).toBe(false);
    // The rule is live for this session too, and granting twice adds nothing.
    expect(p.check(bashTool, { command: "go test ./..." }).action).toBe("allow");
    p.grant("Bash(go test:*)", "persist_project");
    expect((parse(readFileSync(path, "utf8")) as any).permissions.allow).toHaveLength(3);
  });
  test("one-line list", () => {
    const { path, p } = fresh(`[permissions]\nallow = ["Bash(npm test)"] # mine\n`);
    p.grant('Bash=echo "a b" > out.txt', "persist_project");
    const after = readFileSync(path, "utf8");
    expect(after).toContain("# mine");
    expect((parse(after) as any).permissions.allow).toEqual(["Bash(npm test)", 'Bash=echo "a b" > out.txt']);
  });
  test("no [permissions] table yet, and no file at all", () => {
    const a = fresh(`[sandbox]\nnetwork = true\n`);
    a.p.grant("Edit(docs/**)", "persist_project");
    expect(parse(readFileSync(a.path, "utf8"))).toEqual({ sandbox: { network: true }, permissions: { allow: ["Edit(docs/**)"] } });
    const b = fresh(null);
    b.p.grant("Bash(make:*)", "persist_project");
    expect(parse(readFileSync(b.path, "utf8"))).toEqual({ permissions: { allow: ["Bash(make:*)"] } });
  });
  test("a file that cannot be edited safely is left untouched with a clear error", () => {
    const text = `permissions.allow = ["Bash(npm test)"]\n`;
    const { path, p } = fresh(text);
    expect(() => p.grant("Bash(make:*)", "persist_project")).toThrow(/without restructuring the file/);
    expect(readFileSync(path, "utf8")).toBe(text);
    const broken = fresh(`[permissions\nallow = [`);
    expect(() => broken.p.grant("Bash(make:*)", "persist_project")).toThrow(ReasonixError);
  });
});

describe("'allow always' saves in the user's config unless the project file is picked", () => {
  test("persist writes the user file, path rules anchored to this workspace; the project file is untouched", () => {
    const dir = mkdtempSync(join(ws, "user-"));
    const user = join(dir, "config.toml");
    const project = join(dir, "reasonix.toml");
    const p = perms({ projectConfigPath: project, userConfigPath: user });
    expect(p.persistTargets("Edit(calc.py)")).toEqual({ user: { path: user, rule: `Edit(${ws}/calc.py)` }, project: { path: project, rule: "Edit(calc.py)" } });
    p.grant("Edit(calc.py)", "persist");
    p.grant("Bash(npm test)", "persist");
    expect((parse(readFileSync(user, "utf8")) as any).permissions.allow).toEqual([`Edit(${ws}/calc.py)`, "Bash(npm test)"]);
    expect(() => readFileSync(project)).toThrow();
    // The anchored rule still allows the call it was made for.
    const again = perms({ allow: [`Edit(${ws}/calc.py)`] });
    expect(again.check(editFileTool, { path: "calc.py", old_string: "a", new_string: "b" }).action).toBe("allow");
  });
  test("without a known user file, persist fails with a reason and writes nothing", () => {
    const p = perms({ projectConfigPath: join(mkdtempSync(join(ws, "nouser-")), "reasonix.toml") });
    expect(p.persistTargets("Bash(ls)")).toBeUndefined();
    expect(() => p.grant("Bash(make:*)", "persist")).toThrow(/no user config file/);
  });
});

describe("malformed rules fail closed", () => {
  for (const bad of ["Bash(", "Bash()", "Edit(docs/**", "(x)", "Bash(echo $X:*)", "Bash(a; b:*)"]) {
    test(`${JSON.stringify(bad)} is rejected`, () => {
      let err: unknown;
      try {
        perms({ deny: [bad] });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ReasonixError);
      expect((err as ReasonixError).code).toBe("permissions-rule");
    });
  }
  test("grant validates too", () => {
    expect(() => perms().grant("Bash(", "session")).toThrow(ReasonixError);
  });
});
