// REASONIX_TRACE: a one-shot `reasonix run` writes its startup milestones and
// each tool round's steps as JSON lines, every one present and in order
// (core/trace.ts; docs/how-fast.md lists them).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../core/sandbox/index.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

interface Mark {
  mark: string;
  ms: number;
  cpuMs: number;
  durMs?: number;
  tool?: string;
  deltas?: number;
  chars?: number;
  emitMs?: number;
}

let llm: ScriptedServer;
let ce: CliEnv;
let sandboxed = false;

beforeAll(async () => {
  llm = await startScriptedOpenAI([]);
  ce = makeCliEnv(llm.url);
  const status = await probeSandbox();
  sandboxed = status.available;
  if (sandboxed) {
    const cfg = join(ce.home, "config.toml");
    writeFileSync(cfg, readFileSync(cfg, "utf8").replace('bash = "off"', 'bash = "enforce"'));
  } else console.log(`SKIPPED the sandbox steps of the bash round: ${status.cause}`);
});
afterAll(async () => {
  await llm.close();
  ce.cleanup();
});

/** Positions of `names` in `marks` (first occurrence at or after `from`), each after the one before. */
function inOrder(marks: Mark[], names: string[], from = 0): number[] {
  const at: number[] = [];
  let i = from;
  for (const n of names) {
    const j = marks.findIndex((m, k) => k >= i && m.mark === n);
    expect({ mark: n, found: j >= 0 }).toEqual({ mark: n, found: true });
    at.push(j);
    i = j + 1;
  }
  return at;
}

describe("REASONIX_TRACE", () => {
  test("a run with a write, a read and a bash round: startup milestones and round steps, present and ordered", async () => {
    llm.push(
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "one\n" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "true" } }] },
      { text: "done" },
    );
    const trace = join(ce.home, "trace.jsonl");
    const r = await runCli({ ...ce, env: { ...ce.env, REASONIX_TRACE: trace } }, ["run", "--auto", "go"]);
    expect(r.stderr).not.toContain("error");
    expect(r.code).toBe(0);
    const marks: Mark[] = readFileSync(trace, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    // Time and CPU never go backwards, line after line.
    for (let i = 1; i < marks.length; i++) {
      expect(marks[i]!.ms).toBeGreaterThanOrEqual(marks[i - 1]!.ms);
      expect(marks[i]!.cpuMs).toBeGreaterThanOrEqual(marks[i - 1]!.cpuMs);
    }
    // Startup: from main to the first request, then the rounds, then the end.
    const [, , , , , first] = inOrder(marks, ["main", "run:modules", "run:config", "run:engine", "run:session", "request", "response"]);
    // The path policy's repository scan, deferred to the first write decision: once, while the write is judged.
    inOrder(marks, ["policy:scan", "tool:permission"], first);
    expect(marks.filter((m) => m.mark === "policy:scan")).toHaveLength(1);
    // The write round: permission, checkpoint (before the write), the tool, the log.
    const w = inOrder(marks, ["tool:permission", "tool:checkpoint", "tool:run", "tool:log"], first);
    expect(marks.slice(w[0], w[3]! + 1).filter((m) => m.tool).every((m) => m.tool === "write_file")).toBe(true);
    const rd = inOrder(marks, ["request", "tool:permission", "tool:run", "tool:log"], w[3]);
    expect(marks[rd[3]!]!.tool).toBe("read_file");
    const bashSteps = ["tool:permission", "bash:options", "bash:git-scan", ...(sandboxed ? ["bash:layout", "bash:sandbox"] : []), "bash:log", "bash:spawn", "bash:exit", "bash:output", "bash:git-check", "tool:run", "tool:log"];
    const b = inOrder(marks, ["request", ...bashSteps], rd[3]);
    expect(marks[b.at(-1)!]!.tool).toBe("bash");
    inOrder(marks, ["request", "run:done"], b.at(-1));
    // Steps carry their duration, which fits between the marks around them.
    for (const m of marks.filter((x) => x.mark.startsWith("bash:") || x.mark.startsWith("tool:"))) {
      expect(m.durMs).toBeGreaterThanOrEqual(0);
      expect(m.durMs!).toBeLessThanOrEqual(m.ms);
    }
  }, 120_000);

  test("a streamed answer: each model step's `model:stream` counts its deltas and characters, `model:first-delta` marks the first one, after the response and before the end; the log's flush follows", async () => {
    const text = "word ".repeat(200).trimEnd();
    llm.push({ text, chunkSize: 5 });
    const trace = join(ce.home, "trace-stream.jsonl");
    const r = await runCli({ ...ce, env: { ...ce.env, REASONIX_TRACE: trace } }, ["run", "write"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(text);
    const marks: Mark[] = readFileSync(trace, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const [req, , , stream] = inOrder(marks, ["request", "response", "model:first-delta", "model:stream", "run:done"]);
    expect(marks.filter((m) => m.mark === "model:first-delta")).toHaveLength(1);
    // Nothing was written: the path policy's repository scan never ran.
    expect(marks.filter((m) => m.mark === "policy:scan")).toHaveLength(0);
    // The answer's records are flushed to the session log before the run ends.
    const [flush] = inOrder(marks, ["log:fsync", "run:done"], stream);
    expect(marks[flush!]!.durMs).toBeGreaterThanOrEqual(0);
    const s = marks[stream!]!;
    expect({ deltas: s.deltas, chars: s.chars }).toEqual({ deltas: Math.ceil(text.length / 5), chars: text.length });
    // The step spans the request; handing the deltas on is part of it.
    expect(s.durMs!).toBeGreaterThanOrEqual(s.ms - marks[req!]!.ms - 0.01);
    expect(s.emitMs!).toBeGreaterThanOrEqual(0);
    expect(s.emitMs!).toBeLessThanOrEqual(s.durMs!);
  }, 120_000);
});
