// The compiled binary runs code_index with the grammars it carries: `reasonix
// run` in a workspace with no node_modules anywhere near it, the scripted
// model asking for an outline of each language and a definition.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { builtDist, type BuiltDist } from "../../scripts/lib/built-dist.ts";
import { makeCliEnv, type CliEnv } from "./run-helpers.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import * as F from "../../core/tools/tests/code-index-fixtures.ts";
import { BUILD_HOOK_MS } from "../../remote/testing/test-build.ts";

let dist: BuiltDist;
beforeAll(async () => {
  dist = await builtDist();
}, BUILD_HOOK_MS);

let llm: ScriptedServer | undefined;
let ce: CliEnv | undefined;
afterAll(async () => {
  await llm?.close();
  ce?.cleanup();
});

describe("compiled binary", () => {
  test("code_index outlines TypeScript, Python, Go and Rust and finds a definition with the embedded grammars", async () => {
    const files: [string, string, string[]][] = [
      ["engine.ts", F.TS_SOURCE, F.TS_OUTLINE],
      ["animal.py", F.PY_SOURCE, F.PY_OUTLINE],
      ["server.go", F.GO_SOURCE, F.GO_OUTLINE],
      ["point.rs", F.RS_SOURCE, F.RS_OUTLINE],
    ];
    llm = await startScriptedOpenAI([
      {
        toolCalls: [
          ...files.map(([rel]) => ({ name: "code_index", arguments: { action: "outline", path: rel } })),
          { name: "code_index", arguments: { action: "definition", query: "Animal.speak" } },
        ],
      },
      { text: "indexed" },
    ]);
    ce = makeCliEnv(llm.url);
    // Nothing to fall back on: no node_modules between the workspace and the root.
    for (let d = ce.workspace; d !== dirname(d); d = dirname(d)) expect(existsSync(join(d, "node_modules"))).toBe(false);
    for (const [rel, text] of files) writeFileSync(join(ce.workspace, rel), text);
    const p = Bun.spawn([dist.binary, "run", "outline the code"], { cwd: ce.workspace, env: ce.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    clearTimeout(timer);
    expect({ code, err: err.includes("error") ? err : "" }).toEqual({ code: 0, err: "" });
    expect(out).toContain("indexed");
    expect(llm.requests).toHaveLength(2);
    const results = (llm.requests[1]!.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    expect(results).toHaveLength(5);
    files.forEach(([, , outline], i) => expect(results[i]).toBe(outline.join("\n")));
    expect(results[4]!.split("\n").slice(0, 4)).toEqual(["animal.py:14: method Animal.speak", " 12|         return self.name", " 13| ", ">14|     async def speak(self):"]);
  });

  test("with REASONIX_CODE_INDEX_WORKERS the binary parses on its embedded worker thread", async () => {
    await llm?.close();
    ce?.cleanup();
    llm = await startScriptedOpenAI([{ toolCalls: [{ name: "code_index", arguments: { action: "outline", path: "." } }] }, { text: "indexed" }]);
    ce = makeCliEnv(llm.url);
    const n = 150; // three batches: more than one goes to workers
    for (let i = 0; i < n; i++) writeFileSync(join(ce.workspace, `m${i}.ts`), F.TS_SOURCE);
    const p = Bun.spawn([dist.binary, "run", "outline the code"], { cwd: ce.workspace, env: { ...ce.env, REASONIX_CODE_INDEX_WORKERS: "2" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => p.kill("SIGKILL"), 90_000);
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    clearTimeout(timer);
    expect({ code, err: err.includes("error") ? err : "" }).toEqual({ code: 0, err: "" });
    expect({ out, err }).toEqual({ out: expect.stringContaining("indexed"), err: expect.any(String) });
    const result = String((llm.requests[1]!.body as { messages: { role: string; content: unknown }[] }).messages.find((m) => m.role === "tool")!.content);
    expect(result.split("\n").at(-1)).toBe(`(${n} files, ${n * F.TS_OUTLINE.length} symbols)`);
  }, 120_000);
});
