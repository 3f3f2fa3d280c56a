// Hooks in a real session against the scripted model: every event with its
// payload, PreToolUse blocking and approving, a hanging hook killed at its
// timeout, project hooks only in a trusted workspace, and the bash sandbox.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { probeSandbox } from "../../sandbox/index.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { collect, engineFor, makeSandbox, providerConfig, type Sandbox } from "../../engine/tests/helpers.ts";
import { loadConfig } from "../../config/load.ts";
import { loadHooks } from "../config.ts";
import { trustState } from "../../trust/index.ts";
import { put, trustCli } from "../../commands/tests/helpers.ts";

const status = await probeSandbox();
const noBwrap = process.platform !== "linux" || !status.available;
if (noBwrap) console.warn(`SKIPPED hooks in the bash sandbox: ${status.cause ?? process.platform}`);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0]): Promise<{ sb: Sandbox; llm: ScriptedServer; log: string }> {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI(steps);
  cleanups.push(() => sb.cleanup(), () => llm.close());
  return { sb, llm, log: join(dirname(sb.workspace), "hooks.jsonl") };
}

function config(url: string, hooks: Record<string, unknown>[], extra: { mode?: string; deny?: string[]; bash?: string } = {}) {
  const c = providerConfig(url);
  (c.permissions as Record<string, unknown>).deny = extra.deny ?? [];
  c.sandbox = { bash: extra.bash ?? "off" };
  c.hooks = hooks;
  return c;
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);

describe("hook events", () => {
  test("SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop and SessionEnd fire in order with their payloads; prompt hooks add context", async () => {
    const { sb, llm, log } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] }, { text: "wrote it" }]);
    const record = `cat >> '${log}'`;
    const hooks = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"].map((event) => ({ event, command: record, ...(event.endsWith("ToolUse") ? { matcher: "write_file|edit_file" } : {}) }));
    hooks.push({ event: "UserPromptSubmit", command: "echo 'branch: main'" });
    hooks.push({ event: "PreToolUse", matcher: "read_file", command: `echo never >> '${log}.never'` });
    const engine = engineFor(sb, llm.url, { config: config(llm.url, hooks) });
    const s = await engine.createSession();
    expect(await s.submit("write a.txt")).toBe("done");
    await s.close();
    await engine.close();
    const got = lines(log);
    expect(got.map((p) => p.hook_event_name)).toEqual(["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]);
    for (const p of got) expect(p).toMatchObject({ session_id: s.id, cwd: sb.workspace });
    expect(got[0].source).toBe("startup");
    expect(got[1].prompt).toBe("write a.txt");
    expect(got[2]).toMatchObject({ tool_name: "write_file", tool_input: { path: "a.txt", content: "A" } });
    expect(got[3]).toMatchObject({ tool_name: "write_file", tool_response: { ok: true, output: "wrote a.txt" } });
    expect(got[4]).toMatchObject({ reason: "done", stop_hook_active: false });
    expect(got[5].reason).toBe("close");
    expect(existsSync(`${log}.never`)).toBe(false);
    expect(llm.chatRequests()[0]!.body.messages.at(-1).content).toBe("write a.txt\n\n<hook-context>\nbranch: main\n</hook-context>");
  });

  test("PreCompact fires before a compaction request", async () => {
    const big = (c: string) => `${c.repeat(3000)}\n`;
    const { sb, llm, log } = await setup([
      { toolCalls: [{ name: "read_file", arguments: { path: "big1.txt" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "big2.txt" } }] },
      { text: "SUMMARY" },
      { text: "finished" },
    ]);
    writeFileSync(join(sb.workspace, "big1.txt"), big("a"));
    writeFileSync(join(sb.workspace, "big2.txt"), big("b"));
    const cfg = config(llm.url, [{ event: "PreCompact", command: `cat >> '${log}'` }]);
    (cfg.providers as Record<string, unknown>[])[0]!.context_window = 2000;
    (cfg.agent as Record<string, unknown>).compact_ratio = 0.5;
    const engine = engineFor(sb, llm.url, { config: cfg });
    cleanups.push(() => engine.close());
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("read both")).toBe("done");
    expect(evs.some((e) => e.type === "compaction")).toBe(true);
    expect(lines(log).map((p) => [p.hook_event_name, p.trigger])).toEqual([["PreCompact", "auto"]]);
  });
});

describe("PreToolUse decisions", () => {
  test("exit 2 blocks the call and its stderr reaches the model; the turn goes on", async () => {
    const { sb, llm } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }] }, { text: "ok, not writing" }]);
    const engine = engineFor(sb, llm.url, { config: config(llm.url, [{ event: "PreToolUse", matcher: "write_file", command: "echo 'no writes on Fridays' >&2; exit 2" }]) });
    cleanups.push(() => engine.close());
    const s = await engine.createSession();
    expect(await s.submit("write x")).toBe("done");
    expect(existsSync(join(sb.workspace, "x.txt"))).toBe(false);
    const tool = llm.chatRequests()[1]!.body.messages.at(-1);
    expect(tool).toMatchObject({ role: "tool", content: "blocked by a PreToolUse hook: no writes on Fridays" });
  });

  test('{"decision":"block"} blocks; {"decision":"approve"} skips the prompt of a headless ask run but never a deny rule', async () => {
    const { sb, llm } = await setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "blocked.txt", content: "x" } }] },
      { text: "1" },
      { toolCalls: [{ name: "write_file", arguments: { path: "ok.txt", content: "y" } }] },
      { text: "2" },
    ]);
    const decide = `read -r p; case "$p" in *blocked.txt*) echo '{"decision":"block","reason":"protected file"}';; *) echo '{"decision":"approve"}';; esac`;
    const engine = engineFor(sb, llm.url, { config: config(llm.url, [{ event: "PreToolUse", command: decide }]), permissionMode: "ask", headless: true });
    cleanups.push(() => engine.close());
    const s = await engine.createSession();
    expect(await s.submit("one")).toBe("done");
    expect(llm.chatRequests()[1]!.body.messages.at(-1).content).toBe("blocked by a PreToolUse hook: protected file");
    expect(await s.submit("two")).toBe("done");
    expect(readFileSync(join(sb.workspace, "ok.txt"), "utf8")).toBe("y");

    const d = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "no.txt", content: "z" } }] }]);
    const denied = engineFor(d.sb, d.llm.url, { config: config(d.llm.url, [{ event: "PreToolUse", command: `echo '{"decision":"approve"}'` }], { deny: ["write_file"] }), permissionMode: "ask", headless: true });
    cleanups.push(() => denied.close());
    const s2 = await denied.createSession();
    expect(await s2.submit("write")).toBe("denied");
    expect(existsSync(join(d.sb.workspace, "no.txt"))).toBe(false);
  });

  test('{"decision":"approve"} in an interactive ask session: no approval request, the call runs', async () => {
    const { sb, llm } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "i.txt", content: "i" } }] }, { text: "ok" }]);
    const engine = engineFor(sb, llm.url, { config: config(llm.url, [{ event: "PreToolUse", matcher: "write_.*", command: `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'` }]), permissionMode: "ask" });
    cleanups.push(() => engine.close());
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("write")).toBe("done");
    expect(evs.some((e) => e.type === "approval_request")).toBe(false);
    expect(readFileSync(join(sb.workspace, "i.txt"), "utf8")).toBe("i");
  });

  test("a hanging hook is killed at its timeout, reported, and the call it guarded does not run", async () => {
    const { sb, llm } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "slow.txt", content: "x" } }] }, { text: "gave up" }]);
    const engine = engineFor(sb, llm.url, { config: config(llm.url, [{ event: "PreToolUse", command: "sleep 30", timeout_seconds: 1 }]) });
    cleanups.push(() => engine.close());
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("write")).toBe("done");
    expect(existsSync(join(sb.workspace, "slow.txt"))).toBe(false);
    const warning = evs.find((e) => e.type === "warning") as { message: string } | undefined;
    expect(warning?.message).toContain("timed out after 1 s and was killed");
    expect(llm.chatRequests()[1]!.body.messages.at(-1).content).toContain("could not decide (");
    // Reported in the session log too, so every front end shows it.
    expect(s.history().filter((e) => e.type === "warning")).toHaveLength(1);
  });

  test("a failing non-blocking hook (exit 1) is reported and the call goes on", async () => {
    const { sb, llm } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "f.txt", content: "x" } }] }, { text: "ok" }]);
    const engine = engineFor(sb, llm.url, { config: config(llm.url, [{ event: "PostToolUse", command: "echo broken >&2; exit 1" }]) });
    cleanups.push(() => engine.close());
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("write")).toBe("done");
    expect(existsSync(join(sb.workspace, "f.txt"))).toBe(true);
    expect((evs.find((e) => e.type === "warning") as { message: string }).message).toMatch(/PostToolUse hook `echo broken >&2; exit 1` \(.*\) failed \(exit code 1\): broken/);
  });
});

describe("project hooks and trust", () => {
  test("an untrusted .reasonix/hooks.toml is listed as not loaded and never runs; `reasonix trust --yes` lets it run; an edit untrusts it", async () => {
    const { sb, llm, log } = await setup([{ text: "1" }, { text: "2" }, { text: "3" }]);
    writeFileSync(join(sb.home, "config.toml"), "");
    const hookFile = join(sb.workspace, ".reasonix/hooks.toml");
    put(hookFile, `[[hooks]]\nevent = "UserPromptSubmit"\ncommand = "cat >> '${log}'"\n`);
    const userValues = () => loadConfig({ home: sb.home, cwd: sb.workspace }).values;
    const run = async (prompt: string) => {
      // The user's trust records, as the engine gets them from the loaded config.
      const engine = engineFor(sb, llm.url, { config: { ...config(llm.url, []), trust: userValues().trust } });
      const s = await engine.createSession();
      await s.submit(prompt);
      await engine.close();
    };
    const defs = () => loadHooks({ workspace: sb.workspace, values: userValues(), trust: trustState(sb.workspace, userValues()) });
    expect(defs().map((d) => [d.scope, d.event, d.notLoaded])).toEqual([["project", "UserPromptSubmit", "not loaded: workspace not trusted (reasonix trust)"]]);
    await run("untrusted");
    expect(lines(log)).toEqual([]);

    await trustCli(sb.home, sb.workspace);
    expect(defs()[0]!.notLoaded).toBeUndefined();
    await run("trusted");
    expect(lines(log).map((p) => p.prompt)).toEqual(["trusted"]);

    put(hookFile, `[[hooks]]\nevent = "UserPromptSubmit"\ncommand = "cat >> '${log}'; echo changed"\n`);
    await run("edited");
    expect(lines(log).map((p) => p.prompt)).toEqual(["trusted"]);
  });
});

describe.skipIf(noBwrap)("hooks in the bash sandbox", () => {
  test("a hook sees no credentials and cannot write outside the workspace", async () => {
    const { sb, llm } = await setup([{ text: "ok" }]);
    writeFileSync(join(sb.home, ".env"), "SCRIPTED_KEY=sk-test-123\n", { mode: 0o600 });
    const outside = join(sb.home, "escaped.txt");
    const cmd = `env > env.txt; echo pwned > '${outside}' 2>/dev/null; true`;
    const engine = engineFor(sb, llm.url, { config: config(llm.url, [{ event: "UserPromptSubmit", command: cmd }], { bash: "enforce" }) });
    cleanups.push(() => engine.close());
    process.env.SCRIPTED_KEY = "sk-test-123";
    cleanups.push(() => void delete process.env.SCRIPTED_KEY);
    const s = await engine.createSession();
    expect(await s.submit("hi")).toBe("done");
    const env = readFileSync(join(sb.workspace, "env.txt"), "utf8");
    expect(env).not.toContain("sk-test-123");
    expect(existsSync(outside)).toBe(false);
  });
});
