// Fork and rename through the real engine, the scripted model and real session logs.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { engineFor, makeSandbox, type Sandbox } from "../../engine/tests/helpers.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { forkSession } from "../fork.ts";
import { parseJsonl } from "../log.ts";
import type { SessionRecord } from "../records.ts";
import { SessionStore } from "../store.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0]) {
  const sb: Sandbox = makeSandbox();
  const llm = await startScriptedOpenAI(steps);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const store = new SessionStore(join(sb.home, "sessions"));
  const logOf = (id: string) => readFileSync(join(sb.home, "sessions", `${id}.jsonl`), "utf8");
  return { sb, llm, engine, store, logOf };
}

describe("fork", () => {
  test("fork before a turn: the new session holds the turns before it, the model sees only them, the original is untouched", async () => {
    const { llm, engine, store, logOf } = await setup([{ text: "one done" }, { text: "two done" }, { text: "two, the other way" }]);
    const s = await engine.createSession();
    await s.submit("one");
    await s.submit("two");
    const before = logOf(s.id);

    const f = await engine.forkSession!(s.id, { turn: 2 });
    expect(f.id).not.toBe(s.id);
    expect(f.turns!()).toEqual([{ turn: 1, prompt: "one" }]);
    expect(f.history().filter((e) => e.type === "assistant").map((e) => (e as { text: string }).text)).toEqual(["one done"]);

    await f.submit("two, differently");
    const sent = llm.chatRequests().at(-1)!.body.messages.map((m: { role: string; content: string }) => [m.role, m.content]);
    expect(sent.slice(1)).toEqual([["user", "one"], ["assistant", "one done"], ["user", "two, differently"]]);
    expect(f.turns!().map((t) => t.turn)).toEqual([1, 2]);

    // The original's log is byte for byte what it was; the fork's names it.
    expect(logOf(s.id)).toBe(before);
    expect(s.turns!().map((t) => t.prompt)).toEqual(["one", "two"]);
    const fork = parseJsonl<SessionRecord>(logOf(f.id)).records;
    expect(fork[0]).toMatchObject({ t: "meta", id: f.id });
    expect(fork[1]).toMatchObject({ t: "fork", from: s.id, turn: 2 });
    const row = store.list().find((x) => x.id === f.id)!;
    expect(row).toMatchObject({ title: "one (fork)", forkedFrom: { id: s.id, turn: 2 }, turns: 2 });
    expect(store.list().find((x) => x.id === s.id)!.forkedFrom).toBeUndefined();
  });

  test("fork of the whole conversation leaves the file checkpoints and the spend behind: a rewind in the fork changes no file", async () => {
    const { sb, engine, store } = await setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A1" } }], usage: { input: 100, output: 10 } },
      { text: "wrote it", usage: { input: 120, output: 5 } },
    ]);
    const s = await engine.createSession();
    await s.submit("write a");
    const f = await engine.forkSession!(s.id);
    expect(f.turns!()).toEqual([{ turn: 1, prompt: "write a" }]);
    const state = store.load(f.id);
    expect(state.total.inputTokens).toBe(0);
    expect(store.load(s.id).total.inputTokens).toBeGreaterThan(0);
    const r = await f.rewind!(1, "both");
    expect(r.files).toEqual([]);
    expect(readFileSync(join(sb.workspace, "a.txt"), "utf8")).toBe("A1");
    expect(f.turns!()).toEqual([]);
    // The original still has its turn and its checkpoint.
    expect(s.turns!()).toHaveLength(1);
    expect(store.records(s.id).some((x) => x.t === "checkpoint")).toBe(true);
  });

  test("a turn still running (or cut off by a crash) is not copied; an unknown turn or another workspace's session is refused", async () => {
    const { sb, engine, store } = await setup([]);
    const at = new Date().toISOString();
    const file = store.create({ workspace: sb.workspace, model: "scripted", createdAt: at });
    const recs: SessionRecord[] = [
      { t: "turn_start", turn: 1, prompt: "first", at },
      { t: "msg", turn: 1, msg: { role: "user", content: "first" } },
      { t: "msg", turn: 1, msg: { role: "assistant", content: "ok" } },
      { t: "turn_end", turn: 1, reason: "done", at },
      { t: "turn_start", turn: 2, prompt: "second", at },
      { t: "msg", turn: 2, msg: { role: "user", content: "second" } },
    ];
    for (const r of recs) file.append(r);
    const f = forkSession(store, file.id);
    expect(f.state().turns.map((t) => t.prompt)).toEqual(["first"]);
    expect(f.state().openTurn).toBeUndefined();
    f.close();
    file.close();

    expect(() => forkSession(store, file.id, { turn: 7 })).toThrow(/turn 7 is not in session .* \(turns: 1, 2\)/);
    const other = join(sb.workspace, "..", "elsewhere");
    mkdirSync(other);
    await expect(engine.forkSession!(store.create({ workspace: other, model: "scripted", createdAt: at }).id)).rejects.toThrow(/belongs to workspace/);
  });
});

describe("rename", () => {
  test("a title overrides the first prompt, survives a rewind and reloads, \"\" goes back; the open session keeps appending", async () => {
    const { engine, store, logOf } = await setup([{ text: "a" }, { text: "b" }]);
    const s = await engine.createSession();
    await s.submit("first prompt");
    // The session is open (locked) here; the title is appended beside it.
    expect(await engine.renameSession!(s.id, "  Fix the\nlogin bug ")).toBe("Fix the login bug");
    expect(store.list().find((x) => x.id === s.id)!.title).toBe("Fix the login bug");
    await s.submit("second prompt");
    await s.rewind!(2, "conversation");
    expect(store.load(s.id).title).toBe("Fix the login bug");
    const parsed = parseJsonl<SessionRecord>(logOf(s.id));
    expect(parsed.badLines).toBe(0);
    expect(parsed.records.filter((r) => r.t === "title")).toHaveLength(1);

    expect(await engine.renameSession!(s.id, "")).toBe("first prompt");
    expect(store.list().find((x) => x.id === s.id)!.title).toBe("first prompt");
    await expect(engine.renameSession!(s.id, "x".repeat(121))).rejects.toThrow(/121 characters; at most 120/);
    await expect(engine.renameSession!("no-such-session", "t")).rejects.toThrow(/no session "no-such-session"/);
  });

  test("a log whose last line was torn by a crash still takes the title on a line of its own", async () => {
    const { sb, store } = await setup([]);
    const file = store.create({ workspace: sb.workspace, model: "scripted", createdAt: new Date().toISOString() });
    file.close();
    const p = join(sb.home, "sessions", `${file.id}.jsonl`);
    writeFileSync(p, `${readFileSync(p, "utf8")}{"t":"turn_start","tu`);
    store.appendDetached(file.id, { t: "title", title: "Kept", at: new Date().toISOString() });
    expect(store.load(file.id).title).toBe("Kept");
  });
});
