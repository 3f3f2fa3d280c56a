// The model's `ask` over ACP, driven by the SDK's own ClientSideConnection as
// a scripted editor (real NDJSON streams, scripted LLM over loopback HTTP):
// a single-choice question is a session/request_permission with one option
// per choice and Dismiss; several choices or an own answer go as an
// elicitation/create form to an editor that offers forms; without forms a
// question of words alone is dismissed saying why. The answer is the tool result.
import type * as acp from "@agentclientprotocol/sdk";
import { afterEach, expect, test } from "bun:test";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const OPTIONS = [{ label: "Postgres", description: "the server one" }, { label: "SQLite" }, { label: "MySQL" }];

async function ask(args: Record<string, unknown>, caps: acp.ClientCapabilities = {}) {
  const llm = await startScriptedOpenAI([{ toolCalls: [{ name: "ask", arguments: { question: "Which database?", ...args } }] }, { text: "noted" }]);
  const env = makeAcpEnv(llm.url);
  const c = connect(env);
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  await c.conn.initialize(initParams(caps));
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  const run = () => c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "set up the app" }] });
  const toolResult = () => llm.chatRequests()[1]!.body.messages.findLast((m: any) => m.role === "tool")?.content;
  return { ...c, sessionId: s.sessionId, run, toolResult, llm };
}

test("one choice: a permission request with an option per choice and Dismiss; the pick is the tool result", async () => {
  const a = await ask({ options: OPTIONS });
  a.editor.answer = "choice_2";
  expect((await a.run()).stopReason).toBe("end_turn");
  const req = a.editor.permissionRequests[0]!;
  expect(req.toolCall.title).toBe("Which database?");
  expect(req.options.map((o) => [o.optionId, o.kind, o.name])).toEqual([
    ["choice_1", "allow_once", "Postgres — the server one"],
    ["choice_2", "allow_once", "SQLite"],
    ["choice_3", "allow_once", "MySQL"],
    ["dismiss", "reject_once", "Dismiss (do not answer)"],
  ]);
  expect(a.toolResult()).toBe("The user chose: SQLite");
  const [first, second] = a.llm.chatRequests();
  expect(JSON.stringify(second!.body.tools)).toBe(JSON.stringify(first!.body.tools));
});

test("Dismiss, or a cancelled request, tells the model the question was dismissed", async () => {
  const a = await ask({ options: OPTIONS });
  a.editor.answer = "cancelled";
  expect((await a.run()).stopReason).toBe("end_turn");
  expect(a.toolResult()).toBe("The user dismissed the question without answering.");
});

test("several choices and an own answer: an elicitation form to an editor that offers forms", async () => {
  const a = await ask({ options: OPTIONS, multi_select: true, allow_text: true }, { elicitation: { form: {} } } as acp.ClientCapabilities);
  a.editor.elicitAnswer = () => ({ action: "accept", content: { choices: ["MySQL", "Postgres"], text: "and redis" } }) as acp.CreateElicitationResponse;
  expect((await a.run()).stopReason).toBe("end_turn");
  expect(a.editor.permissionRequests).toHaveLength(0);
  const form = a.editor.elicitations[0] as any;
  expect(form).toMatchObject({ sessionId: a.sessionId, mode: "form", message: "Which database?" });
  expect(form.requestedSchema.properties.choices).toEqual({ type: "array", title: "Choices", items: { type: "string", enum: ["Postgres", "SQLite", "MySQL"] } });
  expect(form.requestedSchema.properties.text.type).toBe("string");
  expect(a.toolResult()).toBe("The user chose: Postgres; MySQL\nThe user wrote: and redis");
});

test("without forms: several choices are asked as one; words alone cannot be asked and the model is told why", async () => {
  const multi = await ask({ options: OPTIONS, multi_select: true });
  multi.editor.answer = "choice_3";
  await multi.run();
  expect(multi.toolResult()).toBe("The user chose: MySQL");
  const words = await ask({});
  await words.run();
  expect(words.editor.permissionRequests).toHaveLength(0);
  expect(words.toolResult()).toBe("The question was not answered: this editor cannot take a written answer (it offers no input forms).");
});
