// Benchmark: engine host overhead per tool round, and session-log load time.
//
// 1. Tool rounds: one turn of N rounds (each: model asks for a no-op read
//    tool, we run it, commit the records, ask again) against the scripted
//    OpenAI server, minus the same N streamed HTTP exchanges done by a bare
//    fetch client in the same run. Goal: ≤ 5 ms per round. The turn runs with
//    what `reasonix run` adds on top: the provider's stream watch (timeouts)
//    and the text output that holds piped answers until they are committed.
// 2. Load: a 10,000-event session log replayed by SessionStore.load and by
//    engine.resumeSession, next to a bare JSON.parse of every line.
//    Goal: ≤ 200 ms.
// 3. Catalog: 200 custom commands (150 user, 50 project, approved) and 50
//    skills read, trust-checked and resolved as a session start does.
//    Goal: ≤ 20 ms.
// 4. Guardian path: per gated call, Guardian on vs off in the same run, minus
//    the Guardian model's own (bare HTTP) time (engine-guardian.ts).
//    Goal: ≤ 5 ms.
//
// 5. Subagent spawn: per `task` call, minus a plain tool call and the
//    child model's own (bare HTTP) time (engine-subagent.ts). Goal: ≤ 20 ms.
//
//   bun scripts/bench/engine.ts [--rounds 200] [--events 10000] [--guardian-calls 100] [--spawns 50]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TextRunOutput } from "../../cli/run-text-output.ts";
import { createEngine } from "../../core/engine/index.ts";
import { AppendLog } from "../../core/sessions/log.ts";
import type { SessionRecord } from "../../core/sessions/records.ts";
import { SessionStore } from "../../core/sessions/store.ts";
import { startScriptedOpenAI, type ScriptStep } from "../../core/testing/scripted-llm.ts";
import { skillIndex, workspaceCommands } from "../../core/commands/index.ts";
import { hashInput } from "../../core/trust/inputs.ts";
import { guardianBench, printGuardianBench } from "./engine-guardian.ts";
import { printSubagentBench, subagentBench } from "./engine-subagent.ts";
import { bareClient, benchDirs, cpuMs, noopTools } from "../lib/bench-engine.ts";

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const ROUNDS = opt("rounds", 200);
const EVENTS = opt("events", 10_000);

const { home, ws, cleanup } = benchDirs("rx-bench-engine-");

const steps = (): ScriptStep[] => [
  ...Array.from({ length: ROUNDS }, (_, i) => ({ text: `step ${i}`, toolCalls: [{ name: "noop", arguments: { i } }] })),
  { text: "done" },
];

try {
  // --- 1. tool-round overhead ------------------------------------------------
  const tools = noopTools({ name: "noop", description: "does nothing", kind: "read", properties: { i: { type: "number" } } });

  // Reference: the same exchanges with a bare fetch client reading every byte.
  const ref = await startScriptedOpenAI(steps());
  const exchange = bareClient(ref.url, "m");
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i <= ROUNDS; i++) await exchange();
  const refMs = performance.now() - t0;
  const refCpu = cpuMs(process.cpuUsage(c0));
  await ref.close();

  const llm = await startScriptedOpenAI([{ text: "warm" }, ...steps()]);
  const engine = createEngine({
    workspace: ws,
    home,
    config: {
      providers: [{ name: "bench", kind: "openai", base_url: llm.url, model: "m", api_key_env: "BENCH_KEY" }],
      agent: { max_steps: ROUNDS + 10 },
      permissions: { mode: "auto", allow: [], ask: [], deny: [] },
      sandbox: {},
      tools: {},
    },
    tools,
    permissionMode: "auto",
    headless: true,
  });
  const session = await engine.createSession();
  // `reasonix run --output-format text` into a pipe, writing to a sink.
  let sunk = 0;
  const sink = { write: (t: string) => (sunk += t.length), isTTY: false };
  const text = new TextRunOutput(sink, sink as unknown as NodeJS.WriteStream);
  session.subscribe((e) => text.handle(e));
  // Warm up (SDK import, first connection) outside the timed part.
  await session.submit("warm up");
  const c1 = process.cpuUsage();
  const t1 = performance.now();
  const reason = await session.submit("run the rounds");
  const engMs = performance.now() - t1;
  const engCpu = cpuMs(process.cpuUsage(c1));
  await engine.close();
  await llm.close();
  if (reason !== "done") throw new Error(`engine turn ended with ${reason}`);
  if (sunk === 0) throw new Error("the text output wrote nothing");
  const perRound = (engMs - refMs) / (ROUNDS + 1);
  console.log(`tool rounds:  ${ROUNDS + 1} requests  engine ${engMs.toFixed(0)} ms  bare HTTP ${refMs.toFixed(0)} ms`);
  console.log(`  host overhead per round: ${perRound.toFixed(2)} ms  (goal ≤ 5 ms: ${perRound <= 5 ? "met" : "NOT met"}; ratio to goal ${(perRound / 5).toFixed(2)})`);
  // CPU time is what a busy machine does not inflate (server and client share this process in both runs).
  const cpuPerRound = (engCpu - refCpu) / (ROUNDS + 1);
  console.log(`  CPU overhead per round: ${cpuPerRound.toFixed(2)} ms  (engine ${engCpu.toFixed(0)} ms CPU, bare HTTP ${refCpu.toFixed(0)} ms CPU)`);

  // --- 2. 10,000-event session log -------------------------------------------
  const store = new SessionStore(join(home, "sessions"));
  const file = store.create({ workspace: ws, model: "bench", createdAt: new Date().toISOString() });
  const id = file.id;
  file.close();
  const path = join(home, "sessions", `${id}.jsonl`);
  const lines: string[] = [readFileSync(path, "utf8").trimEnd()];
  let n = 1;
  let turn = 0;
  const push = (r: SessionRecord) => {
    lines.push(JSON.stringify(r));
    n++;
  };
  while (n < EVENTS) {
    turn++;
    push({ t: "turn_start", turn, prompt: `task number ${turn}: please look at the code and fix the failing test`, at: new Date().toISOString() });
    push({ t: "msg", turn, msg: { role: "user", content: `task number ${turn}: please look at the code and fix the failing test` } });
    for (let k = 0; k < 4 && n < EVENTS - 3; k++) {
      push({ t: "usage", turn, usage: { inputTokens: 12000, outputTokens: 300, cacheHitTokens: 11000 } });
      push({ t: "msg", turn, msg: { role: "assistant", content: "Let me check.", reasoning: "thinking ".repeat(20), toolCalls: [{ id: `c${n}`, name: "read_file", arguments: '{"path":"src/app.ts"}' }] } });
      push({ t: "msg", turn, msg: { role: "tool", callId: `c${n - 1}`, name: "read_file", content: "line of code\n".repeat(40) } });
    }
    push({ t: "turn_end", turn, reason: "done", at: new Date().toISOString() });
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
  const bytes = Buffer.byteLength(lines.join("\n"));

  const time = (f: () => unknown, runs = 5) => {
    const xs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      f();
      xs.push(performance.now() - t);
    }
    return xs.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
  };
  const bare = time(() => readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)));
  const load = time(() => store.load(id));
  const openLog = time(() => {
    const { log } = AppendLog.open<SessionRecord>(path);
    log.close();
  });
  const engine2 = createEngine({ workspace: ws, home, config: { providers: [{ name: "bench", kind: "openai", base_url: "http://127.0.0.1:9", model: "m", api_key_env: "BENCH_KEY" }], sandbox: {}, tools: {}, permissions: {}, agent: {} }, tools, headless: true });
  const resumeMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const s = await engine2.resumeSession(id);
    resumeMs.push(performance.now() - t);
    await s.close();
  }
  const resume = resumeMs.sort((a, b) => a - b)[2]!;
  console.log(`session load: ${n} events, ${(bytes / 1e6).toFixed(1)} MB`);
  console.log(`  bare JSON.parse ${bare.toFixed(1)} ms · SessionStore.load ${load.toFixed(1)} ms (×${(load / bare).toFixed(2)} of bare) · log open ${openLog.toFixed(1)} ms`);
  console.log(`  engine.resumeSession ${resume.toFixed(1)} ms  (goal ≤ 200 ms: ${resume <= 200 ? "met" : "NOT met"}; ratio to goal ${(resume / 200).toFixed(2)})`);

  // --- 3. Command catalog at session start ------------------------------------
  const catalog = await catalogBench();
  console.log(`command catalog: ${catalog.commands} commands + ${catalog.skills} skills (${catalog.project} project files, trust-checked)`);
  console.log(`  build + skill index ${catalog.ms.toFixed(1)} ms  (goal ≤ 20 ms: ${catalog.ms <= 20 ? "met" : "NOT met"}; ratio to goal ${(catalog.ms / 20).toFixed(2)})`);

  // --- 4. Guardian path per gated call ------------------------------------------
  printGuardianBench(await guardianBench(opt("guardian-calls", 100)));

  // --- 5. Subagent spawn per task call ------------------------------------------
  printSubagentBench(await subagentBench(opt("spawns", 50)));
} finally {
  cleanup();
}

/** 200 commands + 50 skills on disk; median time of building the catalog and the skill index. */
async function catalogBench(): Promise<{ commands: number; skills: number; project: number; ms: number }> {
  const root = mkdtempSync(join(tmpdir(), "rx-bench-catalog-"));
  try {
    const h = join(root, "home");
    const w = join(root, "ws");
    const write = (p: string, text: string) => {
      mkdirSync(join(p, ".."), { recursive: true });
      writeFileSync(p, text);
    };
    for (let i = 0; i < 150; i++) write(join(h, "commands", `group${i % 10}`, `cmd${i}.md`), `---\ndescription: command ${i}\nargument-hint: <x>\n---\nDo task ${i} with $ARGUMENTS\n`);
    const inputs: Record<string, string> = {};
    for (let i = 0; i < 50; i++) {
      const rel = `.reasonix/commands/p${i}.md`;
      write(join(w, rel), `---\ndescription: project command ${i}\n---\nProject task ${i}: $1\n`);
      inputs[rel] = hashInput(w, rel)!.sha256;
    }
    for (let i = 0; i < 50; i++) write(join(h, "skills", `skill${i}`, "SKILL.md"), `---\nname: skill${i}\ndescription: skill number ${i}\n---\n${"Step.\n".repeat(40)}`);
    const values = { trust: { workspaces: { [w]: { inputs, trusted_at: new Date().toISOString() } } } };
    const xs: number[] = [];
    let counts = { commands: 0, skills: 0 };
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      const cat = workspaceCommands({ workspace: w, home: h, values }).catalog();
      skillIndex(cat.entries);
      xs.push(performance.now() - t);
      counts = { commands: cat.entries.filter((e) => e.kind === "command").length, skills: cat.entries.filter((e) => e.kind === "skill" && e.scope !== "builtin").length };
      if (cat.notLoaded.length) throw new Error(`catalog bench: ${cat.notLoaded.length} entries not loaded`);
    }
    return { ...counts, project: 50, ms: xs.sort((a, b) => a - b)[3]! };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
