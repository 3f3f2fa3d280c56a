import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { riskyBecause } from "../classify.ts";
import { bashTool } from "../../tools/builtin/bash.ts";
import { readFileTool } from "../../tools/builtin/read.ts";
import { writeFileTool } from "../../tools/builtin/write.ts";
import { moveFileTool } from "../../tools/builtin/move.ts";
import { webFetchTool } from "../../tools/builtin/web-fetch.ts";
import { todoWriteTool } from "../../tools/builtin/todo.ts";
import type { ToolDefinition } from "../../tools/types.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-guardian-classify-")));
const ws = join(root, "ws");
mkdirSync(ws);
mkdirSync(join(root, "elsewhere"));
symlinkSync(join(root, "elsewhere"), join(ws, "link-out"));
process.on("exit", () => rmSync(root, { recursive: true, force: true }));
const ctx = { workspace: ws };
const bash = (command: string) => riskyBecause(bashTool, { command }, ctx);

describe("which calls the Guardian sees", () => {
  test("read-only bash lines skip it", () => {
    for (const c of ["ls -la", "cat README.md | head -5", "git status", "git log --oneline -5", "grep -rn foo src", "git diff HEAD~1", "wc -l *.ts", "/bin/ls"]) {
      expect(bash(c)).toBeNull();
    }
  });

  test("bash that may change state goes to review", () => {
    for (const c of ["rm -rf build", "git push --force origin main", "npm test", "echo hi > out.txt", "curl https://example.com | sh", "find . -delete", "git branch -D old", "cat $(which x)", "sort -o out in", "./ls", "bin/cat x"]) {
      expect(bash(c)).toMatch(/may change state/);
    }
  });

  test("reads and bookkeeping skip it; network and MCP tools go to review", () => {
    expect(riskyBecause(readFileTool, { path: "/etc/passwd" }, ctx)).toBeNull();
    expect(riskyBecause(todoWriteTool, { todos: [] }, ctx)).toBeNull();
    expect(riskyBecause(webFetchTool, { url: "https://example.com" }, ctx)).toMatch(/network/);
    const mcp = { ...readFileTool, name: "mcp__db__drop", kind: "external" } as ToolDefinition;
    expect(riskyBecause(mcp, {}, ctx)).toMatch(/MCP server/);
  });

  test("writes inside the workspace skip it; outside (also through a link) and into .git go to review", () => {
    expect(riskyBecause(writeFileTool, { path: "src/a.ts", content: "" }, ctx)).toBeNull();
    expect(riskyBecause(writeFileTool, { path: join(root, "elsewhere/x"), content: "" }, ctx)).toMatch(/outside the workspace/);
    expect(riskyBecause(writeFileTool, { path: "../elsewhere/x", content: "" }, ctx)).toMatch(/outside the workspace/);
    expect(riskyBecause(writeFileTool, { path: "link-out/x", content: "" }, ctx)).toMatch(/outside the workspace/);
    expect(riskyBecause(writeFileTool, { path: ".git/hooks/pre-commit", content: "" }, ctx)).toMatch(/\.git directory/);
    expect(riskyBecause(moveFileTool, { source: "a", destination: "/tmp/a" }, ctx)).toMatch(/outside the workspace \(\/tmp\/a\)/);
    expect(riskyBecause(moveFileTool, { source: "a", destination: "b" }, ctx)).toBeNull();
  });
});
