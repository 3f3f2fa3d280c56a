// Usage counters from headless `reasonix run` (mode on, the choice saved):
// one ping to a loopback collector whose payload passes the allow-list and
// carries nothing of the prompt; DO_NOT_TRACK / CI / REASONIX_TELEMETRY=0 /
// no saved choice / a development build: no request at all; a dead or hanging
// collector changes neither stdout, stderr nor the exit code; at most one
// ping a day.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { readQueue, saveChoice } from "../../core/telemetry/store.ts";
import { mainTs, makeCliEnv, type CliEnv } from "./run-helpers.ts";
import { checkedPayloads, deadCollectorUrl, telemetryCollector, telemetryEnv, telemetryToml } from "./telemetry-helpers.ts";

setDefaultTimeout(120_000);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PROMPT = "summarize secret-project-zebra in /home/alice/private";

async function home(endpoint: string, opts: { mode?: string; choice?: "yes" | "no"; answers?: number } = {}): Promise<CliEnv> {
  const llm = await startScriptedOpenAI(Array.from({ length: opts.answers ?? 1 }, () => ({ text: "All done: zebra summarized." })));
  const ce = makeCliEnv(llm.url, { extraToml: telemetryToml(endpoint, opts.mode ?? "on") });
  cleanups.push(() => llm.close(), () => ce.cleanup());
  if (opts.choice) saveChoice(ce.home, opts.choice);
  return ce;
}

async function run(ce: CliEnv, env: Record<string, string>) {
  const p = Bun.spawn([process.execPath, mainTs, "run", PROMPT], { cwd: ce.workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  // The session id differs from run to run; nothing else may.
  return { stdout, stderr: stderr.replace(/session \S+/g, "session ID"), code };
}

test("mode on, choice saved: one ping whose payloads pass the allow-list and hold nothing of the session", async () => {
  const c = telemetryCollector(204);
  cleanups.push(c.stop);
  const ce = await home(c.url, { choice: "yes" });
  const r = await run(ce, telemetryEnv(ce));
  expect(r.code).toBe(0);
  expect(c.bodies).toHaveLength(1);
  const [p] = checkedPayloads(c.bodies[0]!);
  expect(p!.surface).toBe("run");
  expect(p!.counters).toMatchObject({ finish_reason: { stop: 1 }, turn_latency: expect.any(Object) });
  for (const bad of ["zebra", "alice", "scripted-model", "127.0.0.1", ce.workspace]) expect(c.bodies[0]).not.toContain(bad);
  // Accepted: nothing stays queued.
  expect(readQueue(ce.home)).toEqual([]);
});

test("at most one ping a day: a second run queues its counters without a request", async () => {
  const c = telemetryCollector(204);
  cleanups.push(c.stop);
  const ce = await home(c.url, { choice: "yes", answers: 2 });
  await run(ce, telemetryEnv(ce));
  expect(c.bodies).toHaveLength(1);
  await run(ce, telemetryEnv(ce));
  expect(c.bodies).toHaveLength(1);
  expect(readQueue(ce.home)).toHaveLength(1);
});

const blocked: [string, Record<string, string>, { mode?: string; choice?: "yes" | "no" }][] = [
  ["DO_NOT_TRACK=1", { DO_NOT_TRACK: "1" }, { choice: "yes" }],
  ["CI set", { CI: "true" }, { choice: "yes" }],
  ["REASONIX_TELEMETRY=0", { REASONIX_TELEMETRY: "0" }, { choice: "yes" }],
  ["a development build (no test override)", { REASONIX_TEST_TELEMETRY: "0" }, { choice: "yes" }],
  ["no saved choice", {}, {}],
  ["the choice no", {}, { choice: "no" }],
  ["mode auto (headless run is not an interactive session)", {}, { mode: "auto", choice: "yes" }],
];
for (const [what, extra, opts] of blocked) {
  test(`${what}: no request at all, nothing queued`, async () => {
    const c = telemetryCollector(204);
    cleanups.push(c.stop);
    const ce = await home(c.url, opts);
    const r = await run(ce, telemetryEnv(ce, extra));
    expect(r.code).toBe(0);
    expect(c.bodies).toHaveLength(0);
    expect(existsSync(join(ce.home, "telemetry", "queue.json"))).toBe(false);
  });
}

for (const [what, collector] of [
  ["refusing connections", async () => ({ url: await deadCollectorUrl(), stop: () => {} })],
  ["never answering", async () => telemetryCollector(204, true)],
  ["answering 500", async () => telemetryCollector(500)],
] as const) {
  test(`a collector ${what} changes neither stdout, stderr nor the exit code; the counters stay queued`, async () => {
    const c = await collector();
    cleanups.push(c.stop);
    const ce = await home(c.url, { choice: "yes", answers: 2 });
    const off = await run(ce, telemetryEnv(ce, { DO_NOT_TRACK: "1" }));
    const on = await run(ce, telemetryEnv(ce));
    expect(on).toEqual(off);
    expect(on.code).toBe(0);
    expect(readQueue(ce.home)).toHaveLength(1);
  });
}
