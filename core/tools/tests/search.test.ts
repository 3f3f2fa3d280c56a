import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { globTool } from "../builtin/glob.ts";
import { findRipgrep, grepTool, runGrep } from "../builtin/grep.ts";
import { lsTool } from "../builtin/ls.ts";
import { readFileTool } from "../builtin/read.ts";
import { fixture } from "./helpers.ts";

const fx = fixture({ sandbox: { forbid_read: ["secret"] } });
afterAll(() => fx.cleanup());

// A tree exercising every rule ripgrep applies by default.
Bun.spawnSync(["git", "init", "-q", fx.ws]);
fx.write(".gitignore", "build/\n*.log\n!keep.log\n/rootonly.txt\ndocs/**/gen-*.md\n");
fx.write(".ignore", "by-dotignore.txt\n");
fx.write(".hidden/h.txt", "needle in a hidden dir\n");
fx.write(".dotfile", "needle in a dotfile\n");
fx.write("build/out.txt", "needle in build\n");
fx.write("a.log", "needle in a log\n");
fx.write("keep.log", "needle kept\n");
fx.write("rootonly.txt", "needle root only\n");
fx.write("sub/rootonly.txt", "needle not at root\nnext line\n");
fx.write("by-dotignore.txt", "needle\n");
fx.write("docs/x/gen-a.md", "needle generated\n");
fx.write("docs/x/real.md", "# title\nneedle real\nafter\n\nfar needle\n");
fx.write("src/main.ts", "import x from './util';\n// NEEDLE upper\nconst needle = 1;\nneedle\nnext\n");
fx.write("src/util.ts", "export const y = 'no match here';\n");
fx.write("src/nested/.gitignore", "*.tmp.ts\n");
fx.write("src/nested/a.tmp.ts", "needle tmp\n");
fx.write("src/nested/b.ts", "needleneedle\n");
fx.write("bin.dat", new Uint8Array([...Buffer.from("needle"), 0, 1, 2]));
fx.write("secret/s.txt", "needle secret\n");
fx.write("crlf.txt", "needle\r\nsecond\r\n");
fx.write("uni.txt", "héllo needle ünïcode\n");
symlinkSync(join(fx.ws, "src"), join(fx.ws, "link-to-src"));
symlinkSync(join(fx.ws, "secret"), join(fx.ws, "peek"));

const rg = findRipgrep();
if (!rg) console.warn("ripgrep (rg) is not on PATH: the ripgrep half of the grep parity tests is skipped");

describe("grep: ripgrep and the built-in fallback agree", () => {
  const queries: Record<string, unknown>[] = [
    { pattern: "needle" },
    { pattern: "NEEDLE", ignore_case: true },
    { pattern: "needle", output_mode: "files_with_matches" },
    { pattern: "needle", output_mode: "count" },
    { pattern: "needle", glob: "*.ts" },
    { pattern: "needle", glob: "!*.md" },
    { pattern: "needle", glob: "src/**" },
    { pattern: "needle", glob: "*.log" },
    { pattern: "needle", glob: "nested/*.ts" },
    { pattern: "needle", glob: "b.ts" },
    { pattern: "title|far", path: "docs", context: 1 },
    { pattern: "needle", context: 1 },
    { pattern: "needle$", path: "docs", context: 2 },
    { pattern: "needle\\nnext", multiline: true },
    { pattern: "needle", path: "src" },
    { pattern: "needle", path: "sub" },
    { pattern: "needle", path: "crlf.txt" },
    { pattern: "ne+dle\\b" },
    { pattern: "^needle$" },
    { pattern: "h.llo" },
    { pattern: "(?i)needle upper" },
    { pattern: "needle", max_results: 3 },
    { pattern: "nothing-matches-this" },
  ];
  for (const q of queries) {
    test(JSON.stringify(q), async () => {
      const builtin = await runGrep(q as never, fx.ctx, null);
      expect(builtin.ok).toBe(true);
      if (rg) {
        const viaRg = await runGrep(q as never, fx.ctx, rg);
        expect(builtin.output).toBe(viaRg.output);
      }
    });
  }

  test("what is searched and what is skipped", async () => {
    const files = (await runGrep({ pattern: "needle", output_mode: "files_with_matches" }, fx.ctx, null)).output.split("\n");
    expect(files).toEqual(["crlf.txt", "docs/x/real.md", "keep.log", "src/main.ts", "src/nested/b.ts", "sub/rootonly.txt", "uni.txt"]);
  });

  test("content format, context separators and CRLF", async () => {
    const r = await runGrep({ pattern: "needle", path: "docs", context: 1 }, fx.ctx, null);
    expect(r.output).toBe("docs/x/real.md-1-# title\ndocs/x/real.md:2:needle real\ndocs/x/real.md-3-after\ndocs/x/real.md-4-\ndocs/x/real.md:5:far needle");
    const gap = await runGrep({ pattern: "title|far", path: "docs" }, fx.ctx, null);
    expect(gap.output).toBe("docs/x/real.md:1:# title\ndocs/x/real.md:5:far needle");
    const sep = await runGrep({ pattern: "title|far", path: "docs", context: 1 }, fx.ctx, null);
    expect(sep.output).toBe("docs/x/real.md:1:# title\ndocs/x/real.md-2-needle real\n--\ndocs/x/real.md-4-\ndocs/x/real.md:5:far needle");
    const c = await runGrep({ pattern: "needle$", path: "crlf.txt" }, fx.ctx, null);
    expect(c.output).toBe("crlf.txt:1:needle");
  });

  test("forbidden paths are never searched, even when named directly or through a link", async () => {
    for (const path of ["secret", "secret/s.txt", "peek/s.txt"]) {
      const r = await runGrep({ pattern: "needle", path }, fx.ctx, rg);
      expect(r.ok).toBe(false);
      expect(r.output).toContain("forbid_read");
    }
    const home = fx.write(join(fx.home, "sessions", "s.jsonl"), "needle in state\n");
    expect((await runGrep({ pattern: "needle", path: home }, fx.ctx, null)).output).toContain("Reasonix state");
  });

  test("the agent's own environment under /proc is never searched or read (it holds provider keys)", async () => {
    if (process.platform !== "linux") {
      console.warn("no /proc on this platform: the /proc environ test is skipped");
      return;
    }
    process.env.RX_TEST_PROVIDER_KEY = "sk-proc-leak-check";
    try {
      for (const path of ["/proc/self/environ", `/proc/${process.pid}/environ`, "/proc/thread-self/environ", `/proc/${process.pid}/task`]) {
        for (const backend of [rg, null]) {
          const r = await runGrep({ pattern: "sk-proc-leak", path }, fx.ctx, backend);
          expect(r.output).not.toContain("sk-proc-leak-check");
          expect(r.ok).toBe(false);
          expect(r.output).toContain("process state");
        }
      }
      const read = await fx.run(readFileTool, { path: "/proc/self/environ" });
      expect(read.ok).toBe(false);
      expect(read.output).toContain("process state");
      const list = await fx.run(lsTool, { path: "/proc/self" });
      expect(list.ok).toBe(false);
    } finally {
      delete process.env.RX_TEST_PROVIDER_KEY;
    }
  });

  test("a bad regex is a clear failure in both backends", async () => {
    const b = await runGrep({ pattern: "(unclosed" }, fx.ctx, null);
    expect(b.ok).toBe(false);
    expect(b.output).toContain("invalid regular expression");
    if (rg) {
      const r = await runGrep({ pattern: "(unclosed" }, fx.ctx, rg);
      expect(r.ok).toBe(false);
      expect(r.output).toContain("grep failed");
    }
  });

  test("the tool itself runs (ripgrep when present)", async () => {
    const r = await grepTool.run({ pattern: "const needle" }, fx.ctx);
    expect(r).toEqual({ ok: true, output: "src/main.ts:3:const needle = 1;" });
  });
});

describe("glob", () => {
  test("matches, honours ignore files, skips .git, includes dotfiles, newest first", async () => {
    const old = Date.now() / 1000 - 3600;
    utimesSync(join(fx.ws, "src/main.ts"), old, old);
    const r = await fx.run(globTool, { pattern: "**/*.ts" });
    expect(r.output.split("\n")).toEqual(["src/nested/b.ts", "src/util.ts", "src/main.ts"]);
    expect((await fx.run(globTool, { pattern: "**/*.txt" })).output).not.toContain("build/");
    expect((await fx.run(globTool, { pattern: "**/h.txt" })).output).toBe(".hidden/h.txt");
    expect((await fx.run(globTool, { pattern: "**/HEAD" })).output).toContain("no files match");
    expect((await fx.run(globTool, { pattern: "*.{log,md}" })).output).toBe("keep.log");
  });
  test("path, absolute patterns and forbidden roots", async () => {
    expect((await fx.run(globTool, { pattern: "*.ts", path: "src" })).output.split("\n").sort()).toEqual(["src/main.ts", "src/util.ts"]);
    expect((await fx.run(globTool, { pattern: `${fx.ws}/src/nested/*.ts` })).output).toBe("src/nested/b.ts");
    expect((await fx.run(globTool, { pattern: "**/s.txt" })).output).toContain("no files match");
    const r = await fx.run(globTool, { pattern: "*", path: "secret" });
    expect(r.ok).toBe(false);
    expect((await fx.run(globTool, { pattern: "*", path: "nope" })).output).toContain("not a directory");
  });
});

describe("ls", () => {
  test("lists directories, links and sizes; hides forbidden entries", async () => {
    const r = await fx.run(lsTool, {});
    const lines = r.output.split("\n");
    expect(lines).toContain("src/");
    expect(lines).toContain(".gitignore  (54 B)");
    expect(lines).toContain(`link-to-src -> ${join(fx.ws, "src")}`);
    expect(lines.some((l) => l.startsWith("secret"))).toBe(false);
    expect(lines.some((l) => l.startsWith("peek"))).toBe(false);
    expect((await fx.run(lsTool, { path: "secret" })).ok).toBe(false);
    expect((await fx.run(lsTool, { path: fx.home })).output).toContain("Reasonix state");
    mkdirSync(join(fx.ws, "empty"));
    expect((await fx.run(lsTool, { path: "empty" })).output).toBe("empty is empty");
    expect((await fx.run(lsTool, { path: "uni.txt" })).output).toBe("uni.txt  (24 B)");
  });
});
