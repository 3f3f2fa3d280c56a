import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import type { EngineEvent, EngineSession } from "../types.ts";
import { createEngine } from "../index.ts";
import { collect, engineFor, makeSandbox, providerConfig, testTools, type Sandbox } from "./helpers.ts";

let sb: Sandbox;
let llm: ScriptedServer;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0], opts: Parameters<typeof engineFor>[2] = {}) {
  sb = makeSandbox();
  llm = await startScriptedOpenAI(steps);
  const engine = engineFor(sb, llm.url, opts);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  return engine;
}

const types = (evs: EngineEvent[]) => evs.map((e) => e.type).filter((t) => t !== "text_delta" && t !== "reasoning_delta");

/**
 * The system prompt and tool schemas are byte-identical in every request, and
 * each request's whole conversation is a byte prefix of the next one's (the
 * provider's prompt cache keeps hitting). Returns the system message's JSON.
 */
function expectStablePrefix(reqs: ReturnType<ScriptedServer["chatRequests"]>): string {
  const system = JSON.stringify(reqs[0]!.body.messages[0]);
  const tools = JSON.stringify(reqs[0]!.body.tools);
  for (const r of reqs) {
    expect(JSON.stringify(r.body.messages[0])).toBe(system);
    expect(JSON.stringify(r.body.tools)).toBe(tools);
  }
  for (let i = 0; i + 1 < reqs.length; i++) {
    const prefix = JSON.stringify({ model: reqs[i]!.body.model, messages: reqs[i]!.body.messages }).slice(0, -2);
    expect(reqs[i]!.rawBody.startsWith(prefix)).toBe(true);
    expect(reqs[i + 1]!.rawBody.startsWith(prefix)).toBe(true);
  }
  return system;
}

describe("agent loop against the scripted OpenAI server", () => {
  test("a multi-step task that reads and edits files", async () => {
    const engine = await setup([
      { reasoning: "Look first.", toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }], usage: { input: 500, output: 30, cacheHit: 0 } },
      {
        text: "Now edit.",
        toolCalls: [
          { name: "write_file", arguments: { path: "notes.txt", content: "v2\n" } },
          { name: "write_file", arguments: { path: "src/new.ts", content: "export const x = 1;\n" } },
        ],
        usage: { input: 800, output: 60, cacheHit: 400 },
      },
      { text: "Updated notes.txt and added src/new.ts.", usage: { input: 1000, output: 20, cacheHit: 800 } },
    ]);
    writeFileSync(join(sb.workspace, "notes.txt"), "v1\n");
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("update the notes and add src/new.ts")).toBe("done");

    expect(readFileSync(join(sb.workspace, "notes.txt"), "utf8")).toBe("v2\n");
    expect(readFileSync(join(sb.workspace, "src/new.ts"), "utf8")).toBe("export const x = 1;\n");
    expect(types(evs)).toEqual([
      "turn_start", "usage", "assistant", "tool_call", "tool_result",
      "usage", "assistant", "tool_call", "tool_call", "tool_result", "tool_result",
      "usage", "assistant", "turn_end",
    ]);
    const results = evs.filter((e) => e.type === "tool_result") as Extract<EngineEvent, { type: "tool_result" }>[];
    expect(results[0]!.output).toBe("v1\n");
    expect(results[1]!.receipt).toBe("wrote notes.txt (3 bytes)");
    const reqs = llm.chatRequests();
    expect(reqs).toHaveLength(3);
    expect(reqs[1]!.body.messages.at(-1)).toEqual({ role: "tool", tool_call_id: reqs[1]!.body.messages.at(-2).tool_calls[0].id, content: "v1\n" });
    expect(reqs[2]!.body.messages.filter((m: any) => m.role === "tool")).toHaveLength(3);
    // Usage receipts: per-turn totals and the cache-hit share of the turn.
    const usage = evs.filter((e) => e.type === "usage") as Extract<EngineEvent, { type: "usage" }>[];
    expect(usage.at(-1)!.turn).toEqual({ inputTokens: 2300, outputTokens: 110, cacheHitTokens: 1200 });
    expect(usage.at(-1)!.cacheHitPercent).toBeCloseTo(52.2, 1);
    // The reloadable history mirrors what was streamed.
    expect(types(s.history())).toEqual(types(evs));
  });

  test("read-only calls in one round run in parallel; writers run alone and in order", async () => {
    const log: string[] = [];
    const engine = await setup(
      [
        {
          toolCalls: [
            { name: "slow_read", arguments: { name: "a", ms: 150 } },
            { name: "slow_read", arguments: { name: "b", ms: 150 } },
            { name: "write_file", arguments: { path: "w1.txt", content: "1" } },
            { name: "slow_read", arguments: { name: "c", ms: 10 } },
            { name: "write_file", arguments: { path: "w2.txt", content: "2" } },
          ],
        },
        { text: "ok" },
      ],
      { tools: testTools(log) },
    );
    const s = await engine.createSession();
    expect(await s.submit("go")).toBe("done");
    expect(log.slice(0, 2).sort()).toEqual(["start a", "start b"]);
    expect(log.slice(2, 4).sort()).toEqual(["end a", "end b"]);
    expect(log.slice(4)).toEqual(["write w1.txt", "start c", "end c", "write w2.txt"]);
    // Results go back to the model in call order regardless of finishing order.
    const sent = llm.chatRequests()[1]!.body.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
    expect(sent).toEqual(["slept a", "slept b", "wrote w1.txt", "slept c", "wrote w2.txt"]);
  });

  test("system prompt and tool schemas are byte-identical across every request; instructions ride in the conversation", async () => {
    const engine = await setup([
      { toolCalls: [{ name: "read_file", arguments: { path: "x" } }] },
      { text: "one" },
      { toolCalls: [{ name: "write_file", arguments: { path: "y", content: "y" } }] },
      { text: "two" },
      { text: "three" },
    ]);
    writeFileSync(join(sb.home, "AGENTS.md"), "USER-GLOBAL rule\n");
    writeFileSync(join(dirname(sb.workspace), "CLAUDE.md"), "ANCESTOR rule\n");
    writeFileSync(join(sb.workspace, "REASONIX.md"), "PROJECT rule\n");
    writeFileSync(join(sb.workspace, "AGENTS.local.md"), "LOCAL rule\n");
    const s = await engine.createSession();
    await s.submit("first");
    await s.submit("second");
    await s.close();
    // A resumed session keeps the same prefix too.
    const again = await engine.resumeSession(s.id);
    writeFileSync(join(sb.workspace, "REASONIX.md"), "PROJECT rule CHANGED\n");
    await again.submit("third");

    const reqs = llm.chatRequests();
    expect(reqs).toHaveLength(5);
    const system = expectStablePrefix(reqs);
    expect(system).not.toContain("PROJECT rule");
    const block = reqs[0]!.body.messages[1];
    expect(block.role).toBe("user");
    expect(block.content.startsWith("<project-instructions>")).toBe(true);
    const order = ["USER-GLOBAL", "ANCESTOR", "PROJECT rule", "LOCAL rule"].map((k) => block.content.indexOf(k));
    expect(order.every((x: number) => x >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(reqs[4]!.body.messages[1].content).not.toContain("CHANGED");
  });

  test("reasoning_language rides at the tail of the user message: the system prompt, tools and earlier messages stay byte-identical when it changes", async () => {
    sb = makeSandbox();
    llm = await startScriptedOpenAI([{ text: "one" }, { text: "two" }, { text: "three" }]);
    // The interface language pinned to English: auto then asks for nothing, whatever this machine's locale.
    const values: Record<string, any> = { ...providerConfig(llm.url), language: "en", agent: { reasoning_language: "auto" } };
    const engine = engineFor(sb, llm.url, { config: values });
    cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
    const s = await engine.createSession();
    await s.submit("first");
    values.agent.reasoning_language = "zh";
    await s.submit("second");
    values.agent.reasoning_language = "en";
    await s.submit("third");
    const reqs = llm.chatRequests();
    expect(reqs).toHaveLength(3);
    expect(expectStablePrefix(reqs)).not.toContain("reasoning-language");
    const last = (i: number) => String(reqs[i]!.body.messages.at(-1).content);
    expect(last(0)).not.toContain("reasoning-language");
    expect(last(1)).toEndWith("<reasoning-language>Write your reasoning (thinking) in Simplified Chinese (简体中文).</reasoning-language>");
    expect(last(1).startsWith("second")).toBe(true);
    expect(last(2)).toEndWith("<reasoning-language>Write your reasoning (thinking) in English.</reasoning-language>");
  });

  test("stops at max steps", async () => {
    const engine = await setup(
      [1, 2, 3].map((n) => ({ toolCalls: [{ name: "read_file", arguments: { path: `f${n}` } }] })),
      { maxSteps: 2 },
    );
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("loop forever")).toBe("max_steps");
    expect(llm.chatRequests()).toHaveLength(2);
    expect(evs.at(-1)).toEqual({ type: "turn_end", turn: 1, reason: "max_steps" });
  });

  test("a stream cut while a tool call is streaming is retried without running the call twice", async () => {
    const engine = await setup([
      { toolCalls: [{ name: "append_file", arguments: { path: "log.txt", text: "once\n" } }], cutAfter: 4, chunkSize: 4 },
      { toolCalls: [{ name: "append_file", arguments: { path: "log.txt", text: "once\n" } }] },
      { text: "done" },
    ]);
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("append once")).toBe("done");
    expect(readFileSync(join(sb.workspace, "log.txt"), "utf8")).toBe("once\n");
    expect(evs.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(evs.filter((e) => e.type === "tool_call")).toHaveLength(1);
  });

  test("a provider failure ends the turn with an error event", async () => {
    const engine = await setup([{ kind: "error", status: 401, message: "bad key" }]);
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("hi")).toBe("error");
    const err = evs.find((e) => e.type === "error") as Extract<EngineEvent, { type: "error" }>;
    expect(err.code).toBe("provider_auth");
    expect(err.message).toContain("check api_key_env SCRIPTED_KEY");
    expect(evs.at(-1)).toMatchObject({ type: "turn_end", reason: "error" });
  });

  test("cancel stops a running turn and the session stays usable", async () => {
    const engine = await setup([{ text: "slow", delayMs: 3000 }, { text: "fast" }]);
    const s = await engine.createSession();
    const p = s.submit("slow one");
    await new Promise((r) => setTimeout(r, 150));
    expect(s.busy).toBe(true);
    s.cancel();
    expect(await p).toBe("cancelled");
    expect(s.busy).toBe(false);
    expect(await s.submit("again")).toBe("done");
    const last = llm.chatRequests().at(-1)!.body.messages.slice(1);
    expect(last.map((m: any) => m.content)).toEqual(["slow one", "again"]);
  });

  test("compaction replaces the old middle with a model-written summary and keeps the tail", async () => {
    const big = (c: string) => `${c.repeat(3000)}\n`;
    sb = makeSandbox();
    writeFileSync(join(sb.workspace, "big1.txt"), big("a"));
    writeFileSync(join(sb.workspace, "big2.txt"), big("b"));
    llm = await startScriptedOpenAI([
      { toolCalls: [{ name: "read_file", arguments: { path: "big1.txt" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "big2.txt" } }] },
      (req) => {
        const last = req.body.messages.at(-1);
        return last.content.includes("<compaction-request>") ? { text: "Goal: read two files. SUMMARY-TEXT" } : { kind: "error", status: 400, message: "expected a compaction request" };
      },
      { text: "finished" },
    ]);
    const cfg = providerConfig(llm.url, { context_window: 2000 });
    (cfg.agent as Record<string, unknown>).compact_ratio = 0.5;
    const engine = engineFor(sb, llm.url, { config: cfg });
    cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("read both files")).toBe("done");
    const c = evs.find((e) => e.type === "compaction") as Extract<EngineEvent, { type: "compaction" }>;
    expect(c.removedMessages).toBe(3);
    expect(c.trigger).toBe("auto");
    const reqs = llm.chatRequests();
    expect(reqs).toHaveLength(4);
    const final = reqs[3]!.body.messages;
    expect(final[0]).toEqual(reqs[0]!.body.messages[0]);
    expect(final[1].role).toBe("user");
    expect(final[1].content).toContain("<compaction-summary>");
    expect(final[1].content).toContain("SUMMARY-TEXT");
    expect(JSON.stringify(final)).not.toContain("aaaa");
    expect(JSON.stringify(final)).toContain("bbbb");
    expect(JSON.stringify(reqs[3]!.body.tools)).toBe(JSON.stringify(reqs[0]!.body.tools));
    // The log replays to the same compacted conversation.
    await s.close();
    const again = await engine.resumeSession(s.id);
    cleanups.push(() => again.close());
    // Still above the threshold, so the resumed turn compacts again first.
    llm.push({ text: "SUMMARY-2" }, { text: "resumed" });
    expect(await again.submit("more")).toBe("done");
    const resumed = llm.chatRequests()[4]!.body.messages;
    expect(JSON.stringify(resumed.slice(0, final.length))).toBe(JSON.stringify(final));
  });
});

describe("permissions in the loop", () => {
  async function approvalSession(mode: "ask" | "auto", headless: boolean) {
    const engine = await setup([], { permissionMode: mode, headless });
    const s = await engine.createSession();
    return { engine, s };
  }

  const answerWith = (s: EngineSession, decisions: ("once" | "session" | "persist" | "deny")[]) => {
    const seen: Extract<EngineEvent, { type: "approval_request" }>[] = [];
    s.subscribe((e) => {
      if (e.type === "approval_request") {
        seen.push(e);
        const d = decisions.shift() ?? "deny";
        setTimeout(() => s.approve(e.callId, d), 5);
      }
    });
    return seen;
  };

  test("ask mode: approve once runs the writer; session grant stops further prompts; deny ends the turn", async () => {
    const { s } = await approvalSession("ask", false);
    const asked = answerWith(s, ["once", "session", "deny"]);
    llm.push(
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] },
      { text: "wrote a" },
      { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "B" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "B2" } }] },
      { text: "wrote b twice" },
    );
    expect(await s.submit("write a")).toBe("done");
    expect(readFileSync(join(sb.workspace, "a.txt"), "utf8")).toBe("A");
    expect(asked[0]!.summary).toBe("write_file: write a.txt");
    expect(asked[0]!.suggestedRule).toBe("Edit(a.txt)");
    expect(await s.submit("write b")).toBe("done");
    expect(readFileSync(join(sb.workspace, "b.txt"), "utf8")).toBe("B2");
    expect(asked).toHaveLength(2); // the second b.txt write was covered by the session grant

    // The session grant was path-scoped (Edit(b.txt)), so c.txt asks again; this time the answer is deny.
    llm.push({ toolCalls: [{ name: "write_file", arguments: { path: "c.txt", content: "C" } }, { name: "read_file", arguments: { path: "a.txt" } }] });
    const evs = collect(s);
    expect(await s.submit("write c")).toBe("denied");
    expect(asked).toHaveLength(3);
    expect(existsSync(join(sb.workspace, "c.txt"))).toBe(false);
    const results = evs.filter((e) => e.type === "tool_result") as Extract<EngineEvent, { type: "tool_result" }>[];
    expect(results[0]!.ok).toBe(false);
    expect(results[0]!.output).toContain("permission denied");
    expect(results[1]!.output).toContain("skipped");
    expect(evs.filter((e) => e.type === "approval_resolved").map((e) => (e as { decision: string }).decision)).toEqual(["deny"]);
  });

  test("user denial: the writer does not run, the turn stops as denied, and the conversation stays valid", async () => {
    const { s } = await approvalSession("ask", false);
    answerWith(s, ["deny"]);
    llm.push({ toolCalls: [{ name: "write_file", arguments: { path: "no.txt", content: "N" } }] }, { text: "next turn ok" });
    expect(await s.submit("write no.txt")).toBe("denied");
    expect(existsSync(join(sb.workspace, "no.txt"))).toBe(false);
    expect(await s.submit("something else")).toBe("done");
    const msgs = llm.chatRequests()[1]!.body.messages;
    const tool = msgs.find((m: any) => m.role === "tool");
    expect(tool.content).toContain("permission denied: the user refused write_file: write no.txt");
  });

  test("headless ask fails closed and names the flag that would allow it", async () => {
    const { s } = await approvalSession("ask", true);
    llm.push({ toolCalls: [{ name: "write_file", arguments: { path: "h.txt", content: "H" } }] });
    const evs = collect(s);
    expect(await s.submit("write h.txt")).toBe("denied");
    expect(existsSync(join(sb.workspace, "h.txt"))).toBe(false);
    expect(evs.some((e) => e.type === "approval_request")).toBe(false);
    const r = evs.find((e) => e.type === "tool_result") as Extract<EngineEvent, { type: "tool_result" }>;
    expect(r.ok).toBe(false);
    expect(r.output).toContain("--auto");
  });

  test("auto mode runs writers without prompting; deny rules still win", async () => {
    sb = makeSandbox();
    llm = await startScriptedOpenAI([
      { toolCalls: [{ name: "write_file", arguments: { path: "ok.txt", content: "ok" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "secret/x.txt", content: "x" } }] },
    ]);
    const cfg = providerConfig(llm.url);
    (cfg.permissions as Record<string, unknown>).deny = ["Write(secret/**)"];
    const engine = engineFor(sb, llm.url, { config: cfg, permissionMode: "auto", headless: true });
    cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
    mkdirSync(join(sb.workspace, "secret"));
    const s = await engine.createSession();
    expect(await s.submit("write both")).toBe("denied");
    expect(readFileSync(join(sb.workspace, "ok.txt"), "utf8")).toBe("ok");
    expect(existsSync(join(sb.workspace, "secret/x.txt"))).toBe(false);
  });
});

describe("models and cost receipts", () => {
  test("models() reports entries and whether their key is in .env; cost follows the entry's prices", async () => {
    sb = makeSandbox();
    llm = await startScriptedOpenAI([{ text: "priced", usage: { input: 1_000_000, cacheHit: 600_000, output: 100_000 } }], { models: ["m-a", "m-b"] });
    const cfg = providerConfig(llm.url, { prices: { input: 0.5, cache_hit: 0.1, output: 2, currency: "USD" } });
    (cfg.providers as any[]).push({ name: "multi", kind: "anthropic", base_url: llm.url, models: ["x-1", "x-2"], api_key_env: "MISSING_KEY" });
    const engine = engineFor(sb, llm.url, { config: cfg });
    cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
    expect(engine.models()).toEqual([
      { name: "scripted", kind: "openai", model: "scripted-model", hasKey: true, apiKeyEnv: "SCRIPTED_KEY" },
      { name: "multi/x-1", kind: "anthropic", model: "x-1", hasKey: false, apiKeyEnv: "MISSING_KEY" },
      { name: "multi/x-2", kind: "anthropic", model: "x-2", hasKey: false, apiKeyEnv: "MISSING_KEY" },
    ]);
    expect(await engine.discoverModels!("scripted")).toEqual(["m-a", "m-b"]);
    await expect(engine.createSession({ model: "nope" })).rejects.toThrow(/--model "nope" matches no \[\[providers\]\] entry/);
    const s = await engine.createSession();
    const evs = collect(s);
    await s.submit("price it");
    const u = evs.find((e) => e.type === "usage") as Extract<EngineEvent, { type: "usage" }>;
    // 400k uncached × 0.5 + 600k cached × 0.1 + 100k out × 2, per million.
    expect(u.cost).toEqual({ turn: 0.46, total: 0.46, currency: "USD" });
    expect(u.cacheHitPercent).toBe(60);
  });
});

describe("permission mode switch", () => {
  test("plan mode blocks writers until the session switches to auto", async () => {
    const engine = await setup(
      [
        { toolCalls: [{ name: "write_file", arguments: { path: "p.txt", content: "P" } }] },
        { toolCalls: [{ name: "write_file", arguments: { path: "p.txt", content: "P" } }] },
        { text: "written after the plan was approved" },
      ],
      { permissionMode: "plan", headless: true },
    );
    const s = await engine.createSession();
    expect(await s.submit("write p")).toBe("denied");
    expect(existsSync(join(sb.workspace, "p.txt"))).toBe(false);
    s.setPermissionMode!("auto");
    expect(await s.submit("plan approved, go")).toBe("done");
    expect(readFileSync(join(sb.workspace, "p.txt"), "utf8")).toBe("P");
  });
});

describe("context overflow", () => {
  test("a 'prompt too long' refusal compacts once and retries the same step", async () => {
    const engine = await setup([
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "b.txt" } }] },
      { kind: "error", status: 400, message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens." },
      { text: "SUMMARY-OF-READS" },
      { text: "answered after compaction" },
    ]);
    writeFileSync(join(sb.workspace, "a.txt"), "A".repeat(400));
    writeFileSync(join(sb.workspace, "b.txt"), "B".repeat(400));
    const s = await engine.createSession();
    const evs = collect(s);
    expect(await s.submit("read both")).toBe("done");
    expect(evs.some((e) => e.type === "compaction")).toBe(true);
    const reqs = llm.chatRequests();
    expect(reqs).toHaveLength(5);
    expect(reqs[3]!.body.messages.at(-1).content).toContain("<compaction-request>");
    expect(reqs[4]!.body.messages[1].content).toContain("SUMMARY-OF-READS");
    expect(JSON.stringify(reqs[4]!.body.messages)).not.toContain("AAAA");
  });

  test("a second overflow in the same step is an error, not a loop", async () => {
    const tooLong = { kind: "error" as const, status: 400, message: "prompt is too long: 300000 tokens > 200000 maximum" };
    const engine = await setup([
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
      tooLong,
      { text: "SUMMARY" },
      tooLong,
    ]);
    writeFileSync(join(sb.workspace, "a.txt"), "A".repeat(400));
    const s = await engine.createSession();
    expect(await s.submit("go")).toBe("error");
    expect(llm.chatRequests()).toHaveLength(5);
  });
});

describe("session guards", () => {
  test("a second submit while busy is refused without disturbing the running turn", async () => {
    const engine = await setup([{ text: "slow", delayMs: 300 }]);
    const s = await engine.createSession();
    const first = s.submit("one");
    await expect(s.submit("two")).rejects.toThrow(/already running/);
    expect(await first).toBe("done");
    await s.close();
    await expect(s.submit("three")).rejects.toThrow(/closed/);
  });
});

describe("configuration errors", () => {
  test("a malformed permission rule fails engine creation, naming the file and field", () => {
    const box = makeSandbox();
    cleanups.push(() => box.cleanup());
    const project = join(box.workspace, "reasonix.toml");
    writeFileSync(project, '[permissions]\nallow = ["Bash(ls)"]\ndeny = ["Read(x)", "Bash(unterminated"]\n');
    expect(() => createEngine({ workspace: box.workspace, home: box.home })).toThrow(
      `${project}: permissions.deny[1]: invalid permission rule "Bash(unterminated"`,
    );
  });
});
