// available_commands_update lists the workspace's command catalog, and a
// custom command sent back as prompt text is expanded by the engine.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";
import { put } from "../../commands/tests/helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("custom commands and skills are announced with their hints; /review auth reaches the model expanded", async () => {
  const llm = await startScriptedOpenAI([{ text: "reviewed" }]);
  const env = makeAcpEnv(llm.url);
  const c = connect(env);
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  put(join(env.home, "commands/review.md"), "---\ndescription: review an area\nargument-hint: <area>\n---\nReview the $1 module\n");
  await c.conn.initialize(initParams({}));
  const since = c.editor.mark();
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await c.editor.waitFor((u) => u.update.sessionUpdate === "available_commands_update", since);
  const update = c.editor.updates.find((u) => u.update.sessionUpdate === "available_commands_update")!.update as { availableCommands: { name: string; description: string; input?: { hint: string } }[] };
  const names = update.availableCommands.map((x) => x.name);
  expect(names.slice(0, 2)).toEqual(["mode", "model"]);
  expect(names).toEqual(expect.arrayContaining(["review", "init", "explore", "test", "reasonix-guide", "docs"]));
  expect(update.availableCommands.find((x) => x.name === "review")).toEqual({ name: "review", description: "review an area", input: { hint: "<area>" } });
  const res = await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "/review auth" }] });
  expect(res.stopReason).toBe("end_turn");
  expect(llm.chatRequests()[0]!.body.messages.at(-1).content).toBe("Review the auth module\n");
});
