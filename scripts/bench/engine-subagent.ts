// Benchmark section for scripts/bench/engine.ts: what spawning a subagent
// adds to a `task` call, not counting the models' own time.
//
// The same N turns run twice against the scripted OpenAI server, alternating
// three times (the fastest run of each counts):
//   plain: the parent calls a no-op read tool, then answers;
//   task:  the parent calls `task` (read-only), the child answers at once,
//          then the parent answers.
// The child's model time is N bare streamed HTTP exchanges done by a plain
// fetch client in the same run. Reference: creating and closing a plain
// session (engine.createSession + close), measured in the same run.
//   spawn overhead = (task − plain − bare child HTTP) / N      goal ≤ 20 ms
import { createEngine } from "../../core/engine/index.ts";
import { startScriptedOpenAI, type ScriptStep } from "../../core/testing/scripted-llm.ts";
import { bareClient, benchDirs, noopTools } from "../lib/bench-engine.ts";

const REPEATS = 3;

export interface SubagentBench {
  spawns: number;
  plainMs: number;
  taskMs: number;
  bareMs: number;
  perSpawnMs: number;
  sessionCreateMs: number;
}

export async function subagentBench(n: number): Promise<SubagentBench> {
  const { home, ws, cleanup } = benchDirs("rx-bench-subagent-");
  const tools = noopTools({ name: "noop", description: "does nothing", kind: "read" });
  const engineFor = (url: string) =>
    createEngine({
      workspace: ws, home, tools, permissionMode: "auto", headless: true, mcp: false,
      config: {
        providers: [{ name: "bench", kind: "openai", base_url: url, model: "m", api_key_env: "BENCH_KEY" }],
        agent: { max_steps: 10 }, permissions: { mode: "auto", allow: [], ask: [], deny: [] }, sandbox: {}, tools: {},
      },
    });
  const turns = async (steps: ScriptStep[]): Promise<number> => {
    const llm = await startScriptedOpenAI([{ text: "warm" }, ...steps]);
    const engine = engineFor(llm.url);
    const s = await engine.createSession();
    await s.submit("warm up");
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const r = await s.submit(`turn ${i}`);
      if (r !== "done") throw new Error(`bench turn ended with ${r}`);
    }
    const ms = performance.now() - t0;
    await engine.close();
    await llm.close();
    return ms;
  };
  const plainSteps = (): ScriptStep[] => Array.from({ length: n }, () => [{ toolCalls: [{ name: "noop", arguments: {} }] }, { text: "done" }]).flat();
  const taskSteps = (): ScriptStep[] =>
    Array.from({ length: n }, (_, i) => [{ toolCalls: [{ name: "task", arguments: { description: `job ${i}`, prompt: "answer at once", read_only: true } }] }, { text: "child answer" }, { text: "done" }]).flat();
  try {
    // Bare child model time: the child's one streamed exchange, N times.
    const bare = await startScriptedOpenAI(Array.from({ length: n + 1 }, () => ({ text: "child answer" })));
    const exchange = bareClient(bare.url, "m");
    await exchange();
    const b0 = performance.now();
    for (let i = 0; i < n; i++) await exchange();
    const bareMs = performance.now() - b0;
    await bare.close();

    let plainMs = Infinity;
    let taskMs = Infinity;
    for (let r = 0; r < REPEATS; r++) {
      plainMs = Math.min(plainMs, await turns(plainSteps()));
      taskMs = Math.min(taskMs, await turns(taskSteps()));
    }

    // Reference: a plain session's creation and close, the same N times.
    const llm = await startScriptedOpenAI([]);
    const engine = engineFor(llm.url);
    await (await engine.createSession()).close();
    const c0 = performance.now();
    for (let i = 0; i < n; i++) await (await engine.createSession()).close();
    const sessionCreateMs = (performance.now() - c0) / n;
    await engine.close();
    await llm.close();
    return { spawns: n, plainMs, taskMs, bareMs, perSpawnMs: (taskMs - plainMs - bareMs) / n, sessionCreateMs };
  } finally {
    cleanup();
  }
}

export function printSubagentBench(b: SubagentBench): void {
  console.log(`subagent spawn: ${b.spawns} task calls  task ${b.taskMs.toFixed(0)} ms  plain tool ${b.plainMs.toFixed(0)} ms  bare child HTTP ${b.bareMs.toFixed(0)} ms`);
  console.log(`  overhead per spawn: ${b.perSpawnMs.toFixed(2)} ms  (goal ≤ 20 ms: ${b.perSpawnMs <= 20 ? "met" : "NOT met"}; ratio to goal ${(b.perSpawnMs / 20).toFixed(2)}; ×${(b.perSpawnMs / b.sessionCreateMs).toFixed(2)} of a plain session create+close, ${b.sessionCreateMs.toFixed(2)} ms)`);
}
