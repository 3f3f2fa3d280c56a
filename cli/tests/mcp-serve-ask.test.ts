// `reasonix mcp serve` and the `ask` tool (issue 29): the calling agent
// cannot answer the model's question for the user, so the turn ends as
// needs_user with an error naming the question — it never waits.
import { afterEach, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { caller, untilEnd } from "./mcp-serve-helpers.ts";
import { mainTs, makeCliEnv } from "./run-helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("a question ends the turn as needs_user, naming it", async () => {
  const llm = await startScriptedOpenAI([
    { toolCalls: [{ name: "ask", arguments: { question: "Which branch should I read?", options: [{ label: "main" }, { label: "dev" }] } }] },
    { text: "never sent" },
  ]);
  const ce = makeCliEnv(llm.url);
  const transport = new StdioClientTransport({ command: process.execPath, args: [mainTs, "mcp", "serve"], cwd: ce.workspace, env: ce.env, stderr: "pipe" });
  const client = new Client({ name: "test-driver", version: "1" });
  await client.connect(transport);
  cleanups.push(() => llm.close(), () => ce.cleanup(), () => client.close());
  const call = caller(client);
  const run = await call("reasonix_run", { prompt: "summarise the branch" });
  expect(run.isError).toBe(false);
  const { end, events } = await untilEnd(call, run.data.session_id);
  expect(end.reason).toBe("needs_user");
  expect(end.error).toContain('"Which branch should I read?"');
  expect(events.some((e) => e.event.type === "question_request")).toBe(false);
  expect(llm.chatRequests()).toHaveLength(1);
}, 60_000);
