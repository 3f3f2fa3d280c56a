// code_index against real files: outlines per language, symbol search,
// definitions, incremental re-indexing, .gitignore and forbid_read.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { CodeIndex } from "../../code-index/store.ts";
import { codeIndexTool } from "../builtin/code-index.ts";
import { policyFor } from "../builtin/common.ts";
import * as F from "./code-index-fixtures.ts";
import { fixture, type Fixture } from "./helpers.ts";

const fixtures: Fixture[] = [];
afterAll(() => {
  for (const f of fixtures) f.cleanup();
});
function make(opts: Parameters<typeof fixture>[0] = {}): Fixture {
  const f = fixture(opts);
  fixtures.push(f);
  return f;
}

async function ok(fx: Fixture, input: Record<string, unknown>): Promise<string> {
  const r = await fx.run(codeIndexTool, input);
  if (!r.ok) throw new Error(`code_index ${JSON.stringify(input)} failed: ${r.output}`);
  return r.output;
}

const sources: [string, string, string[]][] = [
  ["src/engine.ts", F.TS_SOURCE, F.TS_OUTLINE],
  ["src/ui/button.tsx", F.TSX_SOURCE, F.TSX_OUTLINE],
  ["src/store.js", F.JS_SOURCE, F.JS_OUTLINE],
  ["py/animal.py", F.PY_SOURCE, F.PY_OUTLINE],
  ["go/server.go", F.GO_SOURCE, F.GO_OUTLINE],
  ["rs/point.rs", F.RS_SOURCE, F.RS_OUTLINE],
];

describe("code_index outline", () => {
  const fx = make();
  for (const [rel, text] of sources) fx.write(rel, text);

  for (const [rel, , expected] of sources) {
    test(`outline of ${rel} lists its declarations with kind, name and line`, async () => {
      expect((await ok(fx, { action: "outline", path: rel })).split("\n")).toEqual(expected);
    });
  }

  test("outline of a directory groups files and counts symbols", async () => {
    const out = await ok(fx, { action: "outline", path: "." });
    const indented = (xs: string[]) => xs.map((l) => `  ${l}`);
    // Files in path order, each followed by its own outline.
    expect(out.split("\n")).toEqual([
      "go/server.go", ...indented(F.GO_OUTLINE),
      "py/animal.py", ...indented(F.PY_OUTLINE),
      "rs/point.rs", ...indented(F.RS_OUTLINE),
      "src/engine.ts", ...indented(F.TS_OUTLINE),
      "src/store.js", ...indented(F.JS_OUTLINE),
      "src/ui/button.tsx", ...indented(F.TSX_OUTLINE),
      `(6 files, ${sources.reduce((n, s) => n + s[2].length, 0)} symbols)`,
    ]);
  });

  test("a directory outline is cut at max_results lines with a note", async () => {
    const out = await ok(fx, { action: "outline", path: ".", max_results: 12 });
    const lines = out.split("\n");
    expect(lines.length).toBeLessThanOrEqual(14);
    expect(out).toContain("output cut at 12 lines");
    expect(out).toContain("more files with symbols not shown");
  });

  test("unsupported files, missing paths and bad input fail with the reason", async () => {
    fx.write("README.md", "# hi\n");
    let r = await fx.run(codeIndexTool, { action: "outline", path: "README.md" });
    expect(r.ok).toBe(false);
    expect(r.output).toContain("code_index reads TypeScript/JavaScript, Python, Go and Rust files");
    r = await fx.run(codeIndexTool, { action: "outline", path: "nope.ts" });
    expect(r).toEqual({ ok: false, output: "not found: nope.ts" });
    r = await fx.run(codeIndexTool, { action: "symbols" });
    expect(r.output).toContain('"query" is required for symbols');
    r = await fx.run(codeIndexTool, { action: "rename", query: "x" });
    expect(r.output).toContain('"action" must be outline, symbols or definition');
  });
});

describe("code_index symbols and definition", () => {
  const fx = make();
  for (const [rel, text] of sources) fx.write(rel, text);

  test("symbols ranks exact, prefix, word-part, substring and fuzzy matches", async () => {
    const out = (await ok(fx, { action: "symbols", query: "Server" })).split("\n");
    // Exact type first, then the method on it (container match), then NewServer (word part).
    expect(out[0]).toBe("go/server.go:9: struct Server");
    expect(out).toContain("go/server.go:19: function NewServer");
    // Container.name prefix first; letters-in-order matches (Engine.constructor) after it.
    expect((await ok(fx, { action: "symbols", query: "Engine.ru" })).split("\n")).toEqual(["src/engine.ts:5: method Engine.run", "src/engine.ts:4: method Engine.constructor"]);
    expect(await ok(fx, { action: "symbols", query: "ftchall" })).toBe("py/animal.py:27: function fetch_all");
    expect(await ok(fx, { action: "symbols", query: "zzzz" })).toBe('no symbols match "zzzz"');
    const scoped = await ok(fx, { action: "symbols", query: "run", path: "src" });
    // Exact names before a prefix match; path limits the search to src/.
    expect(scoped.split("\n")).toEqual(["src/engine.ts:5: method Engine.run", "src/engine.ts:9: method Runner.run", "src/engine.ts:9: interface Runner"]);
    const capped = await ok(fx, { action: "symbols", query: "e", max_results: 2 });
    expect(capped.split("\n")).toHaveLength(3);
    expect(capped).toMatch(/… \d+ more; refine the query or raise max_results$/);
  });

  test("definition shows where a name is declared, with the lines around it", async () => {
    const out = await ok(fx, { action: "definition", query: "NewServer" });
    expect(out.split("\n")).toEqual([
      "go/server.go:19: function NewServer",
      " 17| type ID = int",
      " 18| ",
      ">19| func NewServer(addr string) *Server {",
      " 20| \treturn &Server{Addr: addr}",
      " 21| }",
    ]);
    const method = await ok(fx, { action: "definition", query: "Point::new" });
    expect(method.split("\n")[0]).toBe("rs/point.rs:20: method Point.new");
    // A bare name that several declarations share lists each, the type first.
    const point = (await ok(fx, { action: "definition", query: "Point" })).split("\n").filter((l) => /^\S+:\d+: /.test(l));
    expect(point).toEqual(["rs/point.rs:5: struct Point", "rs/point.rs:19: impl Point"]);
    // Another case is accepted when nothing matches exactly.
    expect((await ok(fx, { action: "definition", query: "newserver" })).split("\n")[0]).toBe("go/server.go:19: function NewServer");
    expect(await ok(fx, { action: "definition", query: "NewServe" })).toBe('no definition of "NewServe" found; similar: NewServer (go/server.go:19)');
  });
});

describe("code_index incremental index", () => {
  test("only changed files are read again, only changed content is parsed again, the cache survives the process", async () => {
    const fx = make();
    fx.write("a.ts", "export function one() {}\n");
    fx.write("b.py", "def two():\n    pass\n");
    fx.write("c.go", "package c\nfunc Three() {}\n");
    const cacheFile = join(fx.ctx.tmpDir, "code-index", "cache.json");
    const policy = policyFor(fx.ctx);
    const idx = new CodeIndex(fx.ws, cacheFile);
    let s = await idx.refresh(fx.ws, policy);
    expect([s.parsed, s.rehashed, s.reused]).toEqual([3, 0, 0]);
    s = await idx.refresh(fx.ws, policy);
    expect([s.parsed, s.rehashed, s.reused]).toEqual([0, 0, 3]);

    // New content: parsed again, the others reused.
    fx.write("a.ts", "export function one() {}\nexport class Four {}\n");
    utimesSync(join(fx.ws, "a.ts"), new Date(), new Date(Date.now() + 5000));
    s = await idx.refresh(fx.ws, policy);
    expect([s.parsed, s.rehashed, s.reused]).toEqual([1, 0, 2]);
    expect(s.files.find((f) => f.rel === "a.ts")!.entry.symbols.map((x) => x.name)).toEqual(["one", "Four"]);

    // Touched but unchanged: read and hashed, not parsed.
    utimesSync(join(fx.ws, "b.py"), new Date(), new Date(Date.now() + 9000));
    s = await idx.refresh(fx.ws, policy);
    expect([s.parsed, s.rehashed, s.reused]).toEqual([0, 1, 2]);

    // Deleted: gone from the index.
    rmSync(join(fx.ws, "c.go"));
    s = await idx.refresh(fx.ws, policy);
    expect(s.files.map((f) => f.rel)).toEqual(["a.ts", "b.py"]);

    // A new process of the same session starts from the saved cache (0600).
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    const again = new CodeIndex(fx.ws, cacheFile);
    s = await again.refresh(fx.ws, policy);
    expect([s.parsed, s.rehashed, s.reused]).toEqual([0, 0, 2]);
    // A corrupt cache only means a cold start.
    Bun.write(cacheFile, "{not json");
    s = await new CodeIndex(fx.ws, cacheFile).refresh(fx.ws, policy);
    expect([s.parsed, s.reused]).toEqual([2, 0]);
  });

  test("the tool sees an edited file's new declarations on the next call", async () => {
    const fx = make();
    fx.write("m.rs", "fn alpha() {}\n");
    expect(await ok(fx, { action: "outline", path: "m.rs" })).toBe("1: function alpha");
    fx.write("m.rs", "fn alpha() {}\nstruct Beta;\n");
    utimesSync(join(fx.ws, "m.rs"), new Date(), new Date(Date.now() + 5000));
    expect(await ok(fx, { action: "outline", path: "m.rs" })).toBe("1: function alpha\n2: struct Beta");
    expect(await ok(fx, { action: "symbols", query: "Beta" })).toBe("m.rs:2: struct Beta");
    expect(readFileSync(join(fx.ctx.tmpDir, "code-index", "cache.json"), "utf8")).toContain('"Beta"');
  });
});

describe("code_index respects what the agent may not read", () => {
  test(".gitignore'd files and node_modules are not indexed", async () => {
    const fx = make();
    expect(Bun.spawnSync(["git", "init", "-q", fx.ws]).exitCode).toBe(0);
    fx.write(".gitignore", "generated/\n*.gen.ts\n");
    fx.write("src/kept.ts", "export function keptFn() {}\n");
    fx.write("src/skip.gen.ts", "export function ignoredByGlob() {}\n");
    fx.write("generated/out.ts", "export function ignoredByDir() {}\n");
    fx.write("node_modules/dep/index.js", "function fromDependency() {}\n");
    const outline = await ok(fx, { action: "outline", path: "." });
    expect(outline).toContain("keptFn");
    for (const name of ["ignoredByGlob", "ignoredByDir", "fromDependency"]) {
      expect(outline).not.toContain(name);
      expect(await ok(fx, { action: "symbols", query: name })).toBe(`no symbols match "${name}"`);
      expect(await ok(fx, { action: "definition", query: name })).toStartWith(`no definition of "${name}" found`);
    }
  });

  test("forbid_read paths are refused when named and invisible in searches", async () => {
    const fx = make({ sandbox: { forbid_read: ["secret"] } });
    fx.write("open.py", "def visible():\n    pass\n");
    fx.write("secret/keys.py", "def hidden_key():\n    pass\n");
    const r = await fx.run(codeIndexTool, { action: "outline", path: "secret/keys.py" });
    expect(r.ok).toBe(false);
    expect(r.output).toContain("forbid_read");
    const dir = await fx.run(codeIndexTool, { action: "outline", path: "secret" });
    expect(dir.ok).toBe(false);
    const all = await ok(fx, { action: "outline", path: "." });
    expect(all).toContain("visible");
    expect(all).not.toContain("hidden_key");
    expect(await ok(fx, { action: "symbols", query: "hidden" })).toBe('no symbols match "hidden"');
    expect(await ok(fx, { action: "definition", query: "hidden_key" })).toStartWith('no definition of "hidden_key" found');
    expect(readFileSync(join(fx.ctx.tmpDir, "code-index", "cache.json"), "utf8")).not.toContain("hidden_key");
  });
});

describe("code_index tool definition", () => {
  test("is a read tool with a fixed schema", () => {
    expect(codeIndexTool.kind).toBe("read");
    expect(codeIndexTool.paths!({ action: "outline", path: "src" })).toEqual(["src"]);
    expect(codeIndexTool.paths!({ action: "symbols", query: "x" })).toEqual(["."]);
    expect(codeIndexTool.summarize({ action: "definition", query: "Foo" })).toBe('code_index definition "Foo"');
    expect(JSON.stringify(codeIndexTool.inputSchema)).toBe(
      '{"type":"object","properties":{"action":{"type":"string","enum":["outline","symbols","definition"]},"path":{"type":"string","description":"file or directory to outline or search (default: the workspace)"},"query":{"type":"string","description":"symbols: text to match against names; definition: the symbol\'s name"},"max_results":{"type":"integer","minimum":1,"description":"cap on output lines (outline), matches (symbols) or definitions"}},"required":["action"],"additionalProperties":false}',
    );
  });
});
