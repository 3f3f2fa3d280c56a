// The session log's durability promise (docs/how-fast.md, "Durability"):
// the model request leaves while the log's sync is still in flight, but a
// turn is reported done only once every record it wrote is on disk, a tool
// that changes something starts only once its call is on disk, and a file
// write goes ahead only once its checkpoint is on disk.
import { afterEach, describe, expect, test } from "bun:test";
import { fstatSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { pollFor } from "../../testing/fresh-wait.ts";
import { logDisk } from "../../sessions/log.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { bashTool } from "../../tools/builtin/bash.ts";
import { engineFor, makeSandbox, providerConfig, testTools, type Sandbox } from "./helpers.ts";

const realSync = logDisk.fdatasync;
let sb: Sandbox | undefined;
let llm: ScriptedServer | undefined;
afterEach(async () => {
  logDisk.fdatasync = realSync;
  await llm?.close();
  sb?.cleanup();
});

/**
 * Wrap the log's sync: `synced` is how many bytes of the log are known to be
 * on disk (the size when a sync started, once it ended); while `hold` is set,
 * syncs wait for its release; `slowMs` makes the disk that much slower.
 */
function watchSyncs() {
  const w = { synced: 0, calls: 0, hold: undefined as Promise<void> | undefined, slowMs: 0, ended: [] as { atMs: number; size: number }[] };
  logDisk.fdatasync = ((fd: number, cb: (e: NodeJS.ErrnoException | null) => void) => {
    w.calls++;
    const size = fstatSync(fd).size;
    const go = () =>
      realSync(fd, (e) => setTimeout(() => {
        if (!e) (w.synced = Math.max(w.synced, size)), w.ended.push({ atMs: performance.timeOrigin + performance.now(), size });
        cb(e);
      }, w.slowMs));
    if (w.hold) void w.hold.then(go);
    else go();
  }) as typeof logDisk.fdatasync;
  return w;
}

const logSize = (id: string) => statSync(join(sb!.home, "sessions", `${id}.jsonl`)).size;

describe("session log durability", () => {
  test("the request leaves while the sync is in flight; turn_end is reported only once the whole log is on disk", async () => {
    sb = makeSandbox();
    llm = await startScriptedOpenAI([{ text: "the answer" }]);
    const w = watchSyncs();
    let release!: () => void;
    w.hold = new Promise<void>((r) => (release = r));
    const engine = engineFor(sb, llm.url);
    const session = await engine.createSession();
    const atEnd: { synced: number; size: number }[] = [];
    session.subscribe((e) => {
      if (e.type === "turn_end") atEnd.push({ synced: w.synced, size: logSize(session.id) });
    });
    const done = session.submit("hello");
    // Every sync is held: the request can only reach the model if it does not wait for one.
    await pollFor("the model request", () => llm!.chatRequests().length, (n) => n === 1);
    expect(w.calls).toBeGreaterThan(0);
    expect(w.synced).toBe(0);
    w.hold = undefined;
    release();
    expect(await done).toBe("done");
    expect(atEnd).toHaveLength(1);
    expect(atEnd[0]!.synced).toBe(atEnd[0]!.size);
    await engine.close();
  });

  test("a tool that changes something starts once its call is on disk; a write once its checkpoint is", async () => {
    sb = makeSandbox();
    writeFileSync(join(sb.workspace, "a.txt"), "old\n");
    llm = await startScriptedOpenAI([
      { toolCalls: [{ name: "probe_write", arguments: { path: "a.txt" } }] },
      { text: "done" },
    ]);
    const w = watchSyncs();
    const seen: Record<string, { synced: number; size: number }> = {};
    let sessionId = "";
    const probe: ToolDefinition<{ path: string }> = {
      name: "probe_write",
      description: "write a file, noting what was on disk at each step",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      kind: "write",
      summarize: (i) => i.path,
      paths: (i) => [i.path],
      async run(i, ctx) {
        seen.start = { synced: w.synced, size: logSize(sessionId) };
        const p = join(ctx.workspace, i.path);
        await ctx.beforeWrite(p);
        seen.afterCheckpoint = { synced: w.synced, size: logSize(sessionId) };
        writeFileSync(p, "new\n");
        return { ok: true, output: "wrote" };
      },
    };
    const tools = testTools();
    tools.register(probe);
    const engine = engineFor(sb, llm.url, { tools });
    const session = await engine.createSession();
    sessionId = session.id;
    expect(await session.submit("write it")).toBe("done");
    // The log grew by the checkpoint record between the two looks, and each time all of it was on disk.
    expect(seen.afterCheckpoint!.size).toBeGreaterThan(seen.start!.size);
    expect(seen.start!.synced).toBe(seen.start!.size);
    expect(seen.afterCheckpoint!.synced).toBe(seen.afterCheckpoint!.size);
    await engine.close();
  });

  test("bash builds its sandbox while the log flushes, and its command starts only once the call is on disk", async () => {
    sb = makeSandbox();
    llm = await startScriptedOpenAI([]);
    const w = watchSyncs();
    // A slow disk: a command that did not wait for the flush would start long before it ends.
    w.slowMs = 150;
    const tools = testTools();
    tools.register(bashTool);
    const engine = engineFor(sb, llm.url, { tools, config: { ...providerConfig(llm.url), sandbox: { bash: "off" } } });
    const session = await engine.createSession();
    const log = join(sb.home, "sessions", `${session.id}.jsonl`);
    // The command reports when it started and how long the log was then.
    llm.push({ toolCalls: [{ name: "bash", arguments: { command: `date +%s%N; stat -c %s ${log}` } }] }, { text: "done" });
    const results: string[] = [];
    session.subscribe((e) => {
      if (e.type === "tool_result") results.push(e.output);
    });
    expect(await session.submit("run it")).toBe("done");
    const [startedNs, sizeThen] = results[0]!.trim().split("\n").map(Number);
    const startedMs = startedNs! / 1e6;
    // A flush that covered the whole log as the command saw it had ended before the command started.
    expect(w.ended.some((x) => x.size >= sizeThen! && x.atMs < startedMs)).toBe(true);
    await engine.close();
  });
});
