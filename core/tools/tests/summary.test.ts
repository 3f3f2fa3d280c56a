// Approval summaries name the tool once ("bash: ls", not "bash: bash: ls"),
// for every built-in tool and through a real session's approval_request.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEngine } from "../../engine/index.ts";
import { builtinTools } from "../builtin/index.ts";
import { callSummary } from "../summary.ts";
import { collect, makeSandbox, providerConfig } from "../../engine/tests/helpers.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import type { EngineEvent } from "../../engine/types.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tool = (name: string, summarize: (i: unknown) => string) => ({ name, summarize });

test("the tool's name appears once, whether or not its own summary starts with it", () => {
  expect(callSummary(tool("bash", () => "bash: npm test"), {})).toBe("bash: npm test");
  expect(callSummary(tool("write_file", () => "write a.txt"), {})).toBe("write_file: write a.txt");
  expect(callSummary(tool("grep", () => 'grep "x" in src'), {})).toBe('grep "x" in src');
  // A longer name that merely starts with the tool's name is not the name.
  expect(callSummary(tool("ls", () => "lsof -i"), {})).toBe("ls: lsof -i");
  expect(callSummary(tool("docs", () => ""), {})).toBe("docs");
  expect(callSummary(tool("boom", () => { throw new Error("x"); }), {})).toBe("boom");
});

test("no built-in tool's summary repeats its name", () => {
  const inputs: Record<string, unknown> = { bash: { command: "npm test" }, web_fetch: { url: "http://127.0.0.1/x" }, grep: { pattern: "x" }, glob: { pattern: "*.ts" }, ls: { path: "src" } };
  for (const t of builtinTools) {
    const s = callSummary(t, inputs[t.name] ?? {});
    expect(s.startsWith(`${t.name}: ${t.name}`)).toBe(false);
    expect(s.startsWith(t.name)).toBe(true);
  }
});

test("a bash approval in a real session reads 'bash: …' once", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "ok" }]);
  writeFileSync(join(sb.home, ".env"), "SCRIPTED_KEY=sk-test\n", { mode: 0o600 });
  const engine = createEngine({ workspace: sb.workspace, home: sb.home, config: { ...providerConfig(llm.url), sandbox: { bash: "off" } }, retry: { baseDelayMs: 5, maxDelayMs: 20 }, permissionMode: "ask", mcp: false });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  const evs = collect(s);
  s.subscribe((e) => {
    if (e.type === "approval_request") queueMicrotask(() => s.approve(e.callId, "deny"));
  });
  expect(await s.submit("say hi")).toBe("denied");
  const asked = evs.filter((e): e is Extract<EngineEvent, { type: "approval_request" }> => e.type === "approval_request");
  expect(asked.map((a) => a.summary)).toEqual(["bash: echo hi"]);
});
