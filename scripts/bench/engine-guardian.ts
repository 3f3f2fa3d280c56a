// Benchmark section for scripts/bench/engine.ts: what the Guardian path adds
// to a gated tool call, not counting the Guardian model's own time.
//
// The same turn of N risky calls (a no-op tool of kind bash; `touch f` is not
// read-only, so every call is gated) runs twice against the scripted OpenAI
// server: Guardian off, then on (a second scripted server answering a "low"
// verdict at once), alternating three times; the fastest run of each counts. The model's own time is N bare streamed HTTP exchanges
// with the Guardian's server, done by a plain fetch client in the same run.
//   overhead per call = (on − off − bare Guardian HTTP) / N      goal ≤ 5 ms
import { createEngine } from "../../core/engine/index.ts";
import { startScriptedOpenAI, type ScriptStep } from "../../core/testing/scripted-llm.ts";
import { bareClient, benchDirs, cpuMs, noopTools } from "../lib/bench-engine.ts";

const REPEATS = 3;
const VERDICT: ScriptStep = { text: JSON.stringify({ risk: "low", user_authorization: "high", reason: "creates an empty file in the workspace" }) };

export interface GuardianBench {
  calls: number;
  offMs: number;
  onMs: number;
  bareMs: number;
  perCallMs: number;
  cpuPerCallMs: number;
}

export async function guardianBench(calls: number): Promise<GuardianBench> {
  const { home, ws, cleanup } = benchDirs("rx-bench-guardian-");
  const tools = noopTools({ name: "bash", description: "no-op stand-in for bash", kind: "bash", properties: { command: { type: "string" } }, summarize: (i: { command?: string }) => String(i?.command ?? "") });
  const round: ScriptStep = { text: "next", toolCalls: [{ name: "bash", arguments: { command: "touch f" } }] };
  // Warm-up turn (one gated call: SDK clients, first connections), then the timed turn.
  const execSteps = (): ScriptStep[] => [round, { text: "warm" }, ...Array.from({ length: calls }, () => round), { text: "done" }];

  async function timedTurn(guardian: boolean): Promise<{ ms: number; cpu: number; reviews: number }> {
    const exec = await startScriptedOpenAI(execSteps());
    const guard = await startScriptedOpenAI(Array.from({ length: calls + 1 }, () => VERDICT));
    const engine = createEngine({
      workspace: ws,
      home,
      config: {
        default_model: "exec",
        providers: [
          { name: "exec", kind: "openai", base_url: exec.url, model: "m", api_key_env: "BENCH_KEY" },
          { name: "guard", kind: "openai", base_url: guard.url, model: "g", api_key_env: "BENCH_KEY" },
        ],
        agent: { max_steps: calls + 10 },
        permissions: { mode: "auto", allow: [], ask: [], deny: [] },
        sandbox: {},
        tools: {},
        guardian: { enabled: guardian, model: "guard", timeout_seconds: 30 },
      },
      tools,
      permissionMode: "auto",
      headless: true,
      mcp: false,
    });
    try {
      const session = await engine.createSession();
      await session.submit("warm up");
      const c = process.cpuUsage();
      const t = performance.now();
      const reason = await session.submit("run the calls");
      const ms = performance.now() - t;
      const cpu = cpuMs(process.cpuUsage(c));
      if (reason !== "done") throw new Error(`guardian bench turn ended with ${reason}`);
      return { ms, cpu, reviews: guard.chatRequests().length };
    } finally {
      await engine.close();
      await exec.close();
      await guard.close();
    }
  }

  try {
    // Off and on alternate, three times each; the fastest of each stands (a busy machine only adds time).
    const runs: { off: Awaited<ReturnType<typeof timedTurn>>; on: Awaited<ReturnType<typeof timedTurn>> }[] = [];
    for (let r = 0; r < REPEATS; r++) runs.push({ off: await timedTurn(false), on: await timedTurn(true) });
    const best = (k: "off" | "on") => runs.map((x) => x[k]).sort((a, b) => a.ms - b.ms)[0]!;
    const off = best("off");
    const on = best("on");
    if (runs.some((x) => x.off.reviews !== 0 || x.on.reviews !== calls + 1)) throw new Error(`guardian bench: expected 0 and ${calls + 1} reviews per run`);
    // The Guardian model's own time: the same exchanges with a bare fetch client.
    const ref = await startScriptedOpenAI([]);
    const exchange = bareClient(ref.url, "g");
    let bareMs = Infinity;
    let bareCpu = Infinity;
    for (let r = 0; r < REPEATS; r++) {
      ref.push(...Array.from({ length: calls }, () => VERDICT));
      const c = process.cpuUsage();
      const t = performance.now();
      for (let i = 0; i < calls; i++) await exchange();
      bareMs = Math.min(bareMs, performance.now() - t);
      bareCpu = Math.min(bareCpu, cpuMs(process.cpuUsage(c)));
    }
    await ref.close();
    return {
      calls,
      offMs: off.ms,
      onMs: on.ms,
      bareMs,
      perCallMs: (on.ms - off.ms - bareMs) / calls,
      // CPU time (this process: client and both scripted servers) is what a busy machine inflates least.
      cpuPerCallMs: (Math.min(...runs.map((x) => x.on.cpu)) - Math.min(...runs.map((x) => x.off.cpu)) - bareCpu) / calls,
    };
  } finally {
    cleanup();
  }
}

export function printGuardianBench(g: GuardianBench): void {
  console.log(`guardian path: ${g.calls} gated calls  Guardian on ${g.onMs.toFixed(0)} ms  off ${g.offMs.toFixed(0)} ms  bare Guardian HTTP ${g.bareMs.toFixed(0)} ms`);
  console.log(`  overhead per gated call (model time excluded): ${g.perCallMs.toFixed(2)} ms  (goal ≤ 5 ms: ${g.perCallMs <= 5 ? "met" : "NOT met"}; ratio to goal ${(g.perCallMs / 5).toFixed(2)})`);
  console.log(`  CPU overhead per gated call: ${g.cpuPerCallMs.toFixed(2)} ms`);
}

if (import.meta.main) {
  const i = process.argv.indexOf("--guardian-calls");
  printGuardianBench(await guardianBench(i >= 0 ? Number(process.argv[i + 1]) : 100));
}
