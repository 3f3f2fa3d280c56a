import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import { collect, engineFor, makeSandbox, providerConfig, type Sandbox } from "../../engine/tests/helpers.ts";
import { AppendLog, parseJsonl } from "../log.ts";
import type { SessionRecord } from "../records.ts";
import { SessionStore } from "../store.ts";
import type { EngineSession } from "../../engine/types.ts";

let sb: Sandbox;
let llm: ScriptedServer;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("append-only log", () => {
  test("a torn last line is dropped on load and the next append starts a clean line", () => {
    sb = makeSandbox();
    cleanups.push(() => sb.cleanup());
    const path = join(sb.home, "t.jsonl");
    const log = AppendLog.create<{ n: number }>(path);
    for (let n = 0; n < 3; n++) log.append({ n });
    log.close();
    appendFileSync(path, '{"n": 3, "half');
    const { log: again, loaded } = AppendLog.open<{ n: number }>(path);
    expect(loaded.records.map((r) => r.n)).toEqual([0, 1, 2]);
    expect(loaded.tornTail).toBe(true);
    again.append({ n: 4 });
    again.close();
    const text = readFileSync(path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(parseJsonl<{ n: number }>(text).records.map((r) => r.n)).toEqual([0, 1, 2, 4]);
  });

  test("a whole last record without its newline is kept", () => {
    sb = makeSandbox();
    cleanups.push(() => sb.cleanup());
    const path = join(sb.home, "t.jsonl");
    writeFileSync(path, '{"n":1}\n{"n":2}');
    const { log, loaded } = AppendLog.open<{ n: number }>(path);
    expect(loaded.records.map((r) => r.n)).toEqual([1, 2]);
    log.append({ n: 3 });
    log.close();
    expect(readFileSync(path, "utf8")).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
  });
});

describe("sessions through the engine", () => {
  async function setup(steps: Parameters<typeof startScriptedOpenAI>[0]) {
    sb = makeSandbox();
    llm = await startScriptedOpenAI(steps);
    const engine = engineFor(sb, llm.url);
    cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
    return engine;
  }

  test("rewind restores code, conversation, or both", async () => {
    const engine = await setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A1" } }, { name: "write_file", arguments: { path: "keep.txt", content: "K1" } }] },
      { text: "turn 1 done" },
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A2" } }, { name: "write_file", arguments: { path: "b.txt", content: "B2" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A3" } }] },
      { text: "turn 2 done" },
      { text: "after rewind" },
    ]);
    writeFileSync(join(sb.workspace, "keep.txt"), "K0");
    const s = (await engine.createSession()) as EngineSession;
    await s.submit("one");
    await s.submit("two");
    expect(readFileSync(join(sb.workspace, "a.txt"), "utf8")).toBe("A3");

    // Code only: files go back to how they were before turn 2; the conversation keeps turn 2.
    const r1 = await s.rewind!(2, "code");
    expect(r1.files.map((f) => [f.path.replace(`${sb.workspace}/`, ""), f.action]).sort()).toEqual([["a.txt", "restored"], ["b.txt", "deleted"]]);
    expect(readFileSync(join(sb.workspace, "a.txt"), "utf8")).toBe("A1");
    expect(existsSync(join(sb.workspace, "b.txt"))).toBe(false);
    expect(s.turns!().map((t) => t.turn)).toEqual([1, 2]);

    // Both, to before turn 1: the files the session created vanish, keep.txt is back to K0, no turns remain.
    const r2 = await s.rewind!(1, "both");
    expect(r2.files.length).toBeGreaterThan(0);
    expect(existsSync(join(sb.workspace, "a.txt"))).toBe(false);
    expect(readFileSync(join(sb.workspace, "keep.txt"), "utf8")).toBe("K0");
    expect(s.turns!()).toEqual([]);
    expect(s.history().filter((e) => e.type === "turn_start")).toHaveLength(0);
    await s.submit("fresh start");
    const sent = llm.chatRequests().at(-1)!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(["system", "user"]);
    expect(sent[1].content).toBe("fresh start");

    // The rewound state survives a reload from the log.
    await s.close();
    const state = new SessionStore(join(sb.home, "sessions")).load(s.id);
    expect(state.turns.map((t) => t.turn)).toEqual([3]);
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  test("conversation-only rewind leaves files alone", async () => {
    const engine = await setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "X" } }] },
      { text: "done" },
    ]);
    const s = await engine.createSession();
    await s.submit("write x");
    const r = await s.rewind!(1, "conversation");
    expect(r.files).toEqual([]);
    expect(readFileSync(join(sb.workspace, "x.txt"), "utf8")).toBe("X");
    expect(s.turns!()).toEqual([]);
  });

  test("a crash mid-round (unanswered tool call, no turn end) resumes into a valid conversation", async () => {
    const engine = await setup([{ text: "resumed fine" }]);
    const store = new SessionStore(join(sb.home, "sessions"));
    const file = store.create({ workspace: sb.workspace, model: "scripted", createdAt: new Date().toISOString() });
    const recs: SessionRecord[] = [
      { t: "turn_start", turn: 1, prompt: "do it", at: new Date().toISOString() },
      { t: "msg", turn: 1, msg: { role: "user", content: "do it" } },
      { t: "msg", turn: 1, msg: { role: "assistant", content: "", toolCalls: [{ id: "c9", name: "write_file", arguments: '{"path":"z","content":"z"}' }] } },
    ];
    for (const r of recs) file.append(r);
    file.close();
    appendFileSync(join(sb.home, "sessions", `${file.id}.jsonl`), '{"t":"msg","turn":1,"msg":{"role":"tool","callId":"c9"');

    const s = await engine.resumeSession(file.id);
    const hist = s.history();
    expect(hist.at(-1)).toMatchObject({ type: "turn_end", turn: 1, reason: "error" });
    expect(await s.submit("continue")).toBe("done");
    const sent = llm.chatRequests()[0]!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(sent[3]).toMatchObject({ role: "tool", tool_call_id: "c9" });
    expect(sent[3].content).toContain("stopped before this tool call finished");
  });

  test("list, show (load) and delete; a session in use cannot be opened twice", async () => {
    const engine = await setup([{ text: "a" }, { text: "b" }]);
    const s1 = await engine.createSession();
    await s1.submit("first session prompt");
    const store = new SessionStore(join(sb.home, "sessions"));
    expect(() => store.open(s1.id)).toThrow(/in use by process/);
    await s1.close();
    const s2 = await engine.createSession();
    await s2.submit("second");
    await s2.close();
    const list = await engine.listSessions();
    expect(list.map((x) => x.id).sort()).toEqual([s1.id, s2.id].sort());
    const one = list.find((x) => x.id === s1.id)!;
    expect(one).toMatchObject({ title: "first session prompt", turns: 1, model: "scripted", workspace: sb.workspace });
    await engine.deleteSession(s1.id);
    expect((await engine.listSessions()).map((x) => x.id)).toEqual([s2.id]);
    expect(() => store.load(s1.id)).toThrow(/no session/);
  });

  test("anthropic thinking blocks are replayed with their signatures on later turns", async () => {
    sb = makeSandbox();
    llm = await startScriptedAnthropic([
      { reasoning: "plan the write", signature: "sig-A", toolCalls: [{ id: "toolu_x", name: "write_file", arguments: { path: "t.txt", content: "T" } }] },
      { reasoning: "all good", signature: "sig-B", text: "wrote t.txt" },
      { text: "second turn" },
    ]);
    const cfg = providerConfig(llm.url);
    (cfg.providers as any[])[0].kind = "anthropic";
    const engine = engineFor(sb, llm.url, { config: cfg });
    cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
    const s = await engine.createSession();
    const evs = collect(s);
    await s.submit("write t");
    await s.submit("again");
    expect(evs.filter((e) => e.type === "reasoning_delta").map((e) => (e as { text: string }).text).join("")).toBe("plan the writeall good");
    const third = llm.chatRequests()[2]!.body.messages;
    expect(third[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "plan the write", signature: "sig-A" },
        { type: "tool_use", id: "toolu_x", name: "write_file", input: { path: "t.txt", content: "T" } },
      ],
    });
    // The tool result closes the previous user turn, so it carries that turn's cache breakpoint (issue 10).
    expect(third[2].content[0]).toEqual({ type: "tool_result", tool_use_id: "toolu_x", content: "wrote t.txt", cache_control: { type: "ephemeral" } });
    expect(third[3].content[0]).toEqual({ type: "thinking", thinking: "all good", signature: "sig-B" });
    expect(readFileSync(join(sb.workspace, "t.txt"), "utf8")).toBe("T");
  });
});
