// `reasonix acp` built as the binary, driven by acpx (a real headless ACP
// client from npm) against a scripted LLM on loopback.
import { afterEach, beforeAll, expect, setDefaultTimeout, test as bunTest } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { builtDist } from "../../scripts/lib/built-dist.ts";
import { startScriptedOpenAI, type ScriptStep } from "../../core/testing/scripted-llm.ts";
import { makeAcpEnv, type AcpEnv } from "../../core/acp/tests/helpers.ts";
import { BUILD_HOOK_MS } from "../../remote/testing/test-build.ts";

// acpx is installed on first use into a cache beside node_modules, not through
// package-lock.json: its optional per-platform packages for other systems are
// not all in the registry, which makes a locked `npm ci` refuse the whole tree.
const ACPX_VERSION = "0.19.1";
const acpxDir = resolve(import.meta.dir, `../../node_modules/.cache/acpx-${ACPX_VERSION}`);
const acpxBin = join(acpxDir, "node_modules", ".bin", "acpx");
let skipReason = "";
if (!existsSync(acpxBin)) {
  const r = Bun.spawnSync(["npm", "install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefix", acpxDir, `acpx@${ACPX_VERSION}`], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0 || !existsSync(acpxBin)) skipReason = `acpx@${ACPX_VERSION} could not be installed (${r.stderr.toString().trim().split("\n").slice(-1)[0] ?? `exit ${r.exitCode}`})`;
}
if (skipReason) console.warn(`SKIPPED acpx suite: ${skipReason}`);
const test = skipReason ? bunTest.skip : bunTest;

// Each test runs acpx two to four times, each starting the binary: 60 s per test was a bet on an idle machine.
setDefaultTimeout(300_000);

let binary = "";
beforeAll(async () => {
  if (!skipReason) binary = (await builtDist()).binary;
}, BUILD_HOOK_MS);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Ran {
  code: number;
  frames: any[];
  stderr: string;
}

async function setup(steps: ScriptStep[]) {
  const llm = await startScriptedOpenAI(steps);
  const env = makeAcpEnv(llm.url);
  cleanups.push(() => env.cleanup(), () => llm.close());
  return { llm, env };
}

function spawnAcpx(env: AcpEnv, args: string[]) {
  return Bun.spawn([acpxBin, "--agent", `${binary} acp`, "--cwd", env.workspace, "--format", "json", ...args], {
    cwd: env.workspace,
    // acpx keeps its session records under $HOME: the throw-away home keeps them out of the user's.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: env.home, REASONIX_HOME: env.home },
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function acpx(env: AcpEnv, ...args: string[]): Promise<Ran> {
  const p = spawnAcpx(env, args);
  // A hang is killed inside the test's own limit. Fresh after a build, on a loaded machine,
  // one acpx call took over 60 s (soak under --load 2: killed with 137 mid-answer).
  const timer = setTimeout(() => p.kill("SIGKILL"), 150_000);
  const [out, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  const frames = out.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  return { code, frames, stderr };
}

/** Wait (bounded) until acpx's queue owner, and with it `reasonix acp`, has exited after its --ttl. */
async function waitIdle(env: AcpEnv): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const st = await acpx(env, "status");
    if (!st.frames.some((f) => f.status === "alive")) return;
    await Bun.sleep(200);
  }
  throw new Error("acpx queue owner still alive after 20 s");
}

const updates = (r: Ran) => r.frames.filter((f) => f.method === "session/update").map((f) => f.params.update);
const stopReason = (r: Ran) => r.frames.find((f) => f.result?.stopReason)?.result.stopReason;

test("acpx exec: initialize, new session, a write needing permission is approved and lands", async () => {
  const { env } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "n.txt", content: "hi\n" } }] }, { text: "Wrote it." }]);
  const r = await acpx(env, "--approve-all", "exec", "write n.txt");
  expect(r.code).toBe(0);
  expect(r.frames[1].result.protocolVersion).toBe(1);
  expect(r.frames.some((f) => f.method === "session/new")).toBe(true);
  const perm = r.frames.find((f) => f.method === "session/request_permission");
  expect(perm.params.toolCall.content[0]).toMatchObject({ type: "diff", newText: "hi\n" });
  // acpx advertises fs/*: the write went through the client, which put it on disk.
  expect(r.frames.find((f) => f.method === "fs/write_text_file")?.params).toMatchObject({ path: join(env.workspace, "n.txt"), content: "hi\n" });
  expect(readFileSync(join(env.workspace, "n.txt"), "utf8")).toBe("hi\n");
  expect(updates(r).filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("")).toBe("Wrote it.");
  expect(stopReason(r)).toBe("end_turn");
});

test("acpx exec --deny-all: the write is refused and the file never appears", async () => {
  const { env } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "no.txt", content: "x" } }] }, { text: "Could not." }]);
  const r = await acpx(env, "--deny-all", "exec", "write no.txt");
  expect(r.frames.some((f) => f.method === "session/request_permission")).toBe(true);
  expect(existsSync(join(env.workspace, "no.txt"))).toBe(false);
  const failed = updates(r).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
  expect(failed.content[0].content.text).toMatch(/permission denied/);
  expect(stopReason(r)).toBe("end_turn");
});

test("acpx cancel stops a streaming prompt, which answers cancelled", async () => {
  const { env } = await setup([{ text: "an answer that stalls half way", chunkSize: 3, stallAfter: 3 }]);
  expect((await acpx(env, "sessions", "new")).code).toBe(0);
  const prompt = spawnAcpx(env, ["--ttl", "2", "prompt", "go"]);
  let text = "";
  const out = (async () => {
    const dec = new TextDecoder();
    for await (const c of prompt.stdout) text += dec.decode(c, { stream: true });
    return text;
  })();
  // Cancel only once the model is streaming (bounded waits): earlier, acpx drops the queued prompt itself.
  for (let i = 0; i < 300 && !text.includes('"agent_message_chunk"'); i++) await Bun.sleep(100);
  expect(text).toContain('"agent_message_chunk"');
  let cancelled = false;
  for (let i = 0; i < 20 && !cancelled; i++) {
    const c = await acpx(env, "cancel");
    cancelled = c.frames.some((f) => f.action === "cancel_result" && f.cancelled);
    if (!cancelled) await Bun.sleep(200);
  }
  expect(cancelled).toBe(true);
  const frames = (await out).split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  await prompt.exited;
  await waitIdle(env);
  expect(frames.some((f) => f.method === "session/cancel")).toBe(true);
  expect(frames.find((f) => f.result?.stopReason)?.result.stopReason).toBe("cancelled");
}, 150_000);

test("acpx sessions: a second prompt from a new process resumes the same conversation; session/list shows it", async () => {
  const { env, llm } = await setup([{ text: "first answer" }, { text: "second answer" }]);
  const created = await acpx(env, "sessions", "new");
  const id = created.frames[0].acpxSessionId;
  expect((await acpx(env, "--ttl", "1", "prompt", "remember the word teal")).code).toBe(0);
  await waitIdle(env);
  const second = await acpx(env, "--ttl", "1", "prompt", "which word?");
  await waitIdle(env);
  expect(second.frames.some((f) => f.method === "session/resume" && f.params.sessionId === id)).toBe(true);
  const msgs = llm.chatRequests()[1]!.body.messages.map((m: any) => m.content);
  expect(msgs).toContain("remember the word teal");
  expect(msgs).toContain("first answer");
  const listed = await acpx(env, "sessions");
  const sessions = listed.frames.find((f) => f.source === "agent").sessions;
  expect(sessions.map((s: any) => [s.sessionId, s.cwd, s.title])).toEqual([[id, env.workspace, "remember the word teal"]]);
}, 150_000);

test("acpx prompts /memory to the compiled binary: the recall trace of the prompt before, then forget and recover as revision 2", async () => {
  const { env, llm } = await setup([{ text: "compose first" }]);
  const { MemoryStore } = await import("../../core/memory/store.ts");
  const store = new MemoryStore(env.home, env.workspace);
  const id = "tests-need-compose";
  store.create({ id, text: "The integration tests need docker compose up -d postgres first.", type: "project", scope: "project" });
  const backup = join(env.home, "..", "acpx-backup.md");
  writeFileSync(backup, readFileSync(store.get(id)!.path, "utf8"));
  const said = (r: Ran) => updates(r).filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
  expect((await acpx(env, "sessions", "new")).code).toBe(0);
  // One queue owner (one `reasonix acp`) for the prompts: the trace lives in the open session.
  expect(said(await acpx(env, "--ttl", "30", "prompt", "how do the integration tests run?"))).toBe("compose first");
  const trace = said(await acpx(env, "--ttl", "30", "prompt", "/memory recall"));
  expect(trace).toContain(`${id}  score `);
  expect(trace).toMatch(/budget used: 1\/4 facts/);
  expect(said(await acpx(env, "--ttl", "30", "prompt", `/memory forget ${id}`))).toContain(`archived ${id} at revision 1`);
  expect(said(await acpx(env, "--ttl", "1", "prompt", `/memory recover ${backup}`))).toContain(`recovered ${id} from ${backup} as revision 2`);
  await waitIdle(env);
  expect(store.revisions(id).map((r) => [r.fact.revision, r.current])).toEqual([[1, false], [2, true]]);
  expect(llm.chatRequests()).toHaveLength(1);
}, 200_000);
