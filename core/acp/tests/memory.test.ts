// /memory through ACP (the SDK's ClientSideConnection on real NDJSON streams,
// the engine, a scripted model on loopback): the same dispatcher as the chat
// and the web UI — the trace of the last recall, the list, and
// forget → archived → recover from a backup as revision n+1.
import { afterEach, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { MemoryStore } from "../../memory/store.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("/memory over ACP: announced, recall trace, list, forget → archived → recover gives revision n+1", async () => {
  const llm = await startScriptedOpenAI([{ text: "compose first" }]);
  const env = makeAcpEnv(llm.url);
  const c = connect(env);
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  const store = new MemoryStore(env.home, env.workspace);
  const id = "tests-need-compose";
  store.create({ id, text: "The integration tests need docker compose up -d postgres first.", type: "project", scope: "project" });
  store.update(id, 1, { text: "The integration tests need docker compose up -d postgres redis first." });
  const backup = join(env.home, "..", "acp backup.md");
  copyFileSync(store.get(id)!.path, backup);

  await c.conn.initialize(initParams({}));
  const since = c.editor.mark();
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await c.editor.waitFor((u) => u.update.sessionUpdate === "available_commands_update", since);
  const listed = c.editor.updates.find((u) => u.update.sessionUpdate === "available_commands_update")!.update as { availableCommands: { name: string }[] };
  expect(listed.availableCommands.map((x) => x.name)).toContain("memory");

  /** Send `text`; the message the agent answered it with (prompt resolves after the answer is flushed). */
  const say = async (text: string) => {
    const before = c.editor.text(s.sessionId).length;
    const res = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text }] });
    expect(res.stopReason).toBe("end_turn");
    return c.editor.text(s.sessionId).slice(before);
  };

  expect(await say("/memory recall")).toContain("No recall yet in this session");
  expect(await say("how do the integration tests run?")).toBe("compose first");
  expect(llm.chatRequests()[0]!.body.messages.at(-1).content).toContain("docker compose up -d postgres redis");
  const trace = await say("/memory recall");
  expect(trace).toContain(`${id}  score `);
  expect(trace).toContain("project project r2");
  expect(trace).toMatch(/budget used: 1\/4 facts, \d+\/2400 characters/);
  expect(llm.chatRequests()).toHaveLength(1); // commands never reach the model
  // A model switch reopens the session: the trace stays.
  expect(await say("/model other")).toContain("model other from here on");
  expect(await say("/memory recall")).toContain(`${id}  score `);

  expect(await say("/memory")).toContain(`${id}  r2 · project · project`);
  expect(await say(`/memory forget ${id}`)).toContain(`archived ${id} at revision 2`);
  expect(await say("/memory archived")).toContain(`${id}  r2`);
  expect(await say(`/memory recover "${backup}"`)).toContain(`recovered ${id} from ${backup} as revision 3`);
  expect(store.revisions(id).map((r) => [r.fact.revision, r.current])).toEqual([[1, false], [2, false], [3, true]]);
  expect(await say("/memory restore " + id + " 1")).toContain(`restored ${id} revision 1 as revision 4`);
  expect(store.get(id)!.fact.text).toBe("The integration tests need docker compose up -d postgres first.");
  expect(await say("/memory frobnicate")).toContain('unknown /memory subcommand "frobnicate"');
});
