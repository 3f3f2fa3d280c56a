// The `ask` tool through the session host (issue 29): the question waits
// like an approval (held by the same desk, listed by the host, in every mode
// including yolo), the answer becomes the tool result, a dismissal says so,
// an answer that does not fit is refused while the question keeps waiting,
// and a headless run ends the turn as needs_user naming the question. The
// tool block the model gets is the same byte for byte before and after.
// Real engine, scripted model over HTTP.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { SessionHost } from "../session-host.ts";
import { pollFor } from "../../testing/fresh-wait.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import { registerBuiltinTools } from "../../tools/builtin/index.ts";
import { collect, engineFor, makeSandbox, providerConfig } from "../../engine/tests/helpers.ts";
import type { PermissionMode } from "../../engine/types.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
setDefaultTimeout(60_000);

const ASK = { question: "Which database?", options: [{ label: "Postgres", description: "the usual" }, { label: "SQLite" }, { label: "MySQL" }] };

async function setup(script: Parameters<typeof startScriptedOpenAI>[0], o: { mode?: PermissionMode; headless?: boolean } = {}) {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI(script);
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  const engine = engineFor(sb, llm.url, { config: { ...providerConfig(llm.url), sandbox: { bash: "off" } }, tools, permissionMode: o.mode ?? "ask", headless: o.headless });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const host = new SessionHost(engine, await engine.createSession(), o.mode ? { mode: o.mode } : {});
  cleanups.push(() => host.session.close());
  return { llm, host };
}

const toolResult = (body: any): string => body.messages.findLast((m: any) => m.role === "tool")?.content;

for (const mode of ["ask", "yolo"] as const) {
  test(`${mode} mode: the question waits in the host, the answer is the tool result, the tool block is unchanged`, async () => {
    const { llm, host } = await setup([{ toolCalls: [{ name: "ask", arguments: { ...ASK, multi_select: true, allow_text: true } }] }, { text: "noted" }], { mode });
    const events = collect(host.session);
    const turn = host.submit("set up the app");
    const [q] = await pollFor("a question waiting", () => host.questions(), (qs) => qs.length === 1);
    expect(q).toMatchObject({ type: "question_request", question: "Which database?", multi: true, allowText: true });
    expect(q!.options.map((o) => o.label)).toEqual(["Postgres", "SQLite", "MySQL"]);
    // Not a permission: nothing asks for approval, whatever the mode.
    expect(host.approvals()).toEqual([]);
    // An answer that does not fit is refused and the question keeps waiting.
    expect(() => host.answerQuestion(q!.callId, { choices: ["Oracle"] })).toThrow(/not one of the options/);
    expect(host.questions()).toHaveLength(1);
    host.answerQuestion(q!.callId, { choices: ["MySQL", "Postgres"], text: "  and a cache  " });
    expect(await turn).toBe("done");
    expect(host.questions()).toEqual([]);
    expect(events.find((e) => e.type === "question_resolved")).toEqual({ type: "question_resolved", callId: q!.callId, answer: { choices: ["Postgres", "MySQL"], text: "and a cache" } });
    const [first, second] = llm.chatRequests();
    expect(toolResult(second!.body)).toBe("The user chose: Postgres; MySQL\nThe user wrote: and a cache");
    expect(JSON.stringify(second!.body.tools)).toBe(JSON.stringify(first!.body.tools));
    expect(first!.body.tools.some((t: any) => t.function?.name === "ask")).toBe(true);
  });
}

test("a single-choice question takes one pick; dismissing it tells the model and the turn goes on", async () => {
  const { llm, host } = await setup([{ toolCalls: [{ name: "ask", arguments: ASK }] }, { text: "ok, I will choose" }]);
  const turn = host.submit("set up");
  const [q] = await pollFor("a question waiting", () => host.questions(), (qs) => qs.length === 1);
  expect(() => host.answerQuestion(q!.callId, { choices: ["SQLite", "MySQL"] })).toThrow(/one choice/);
  expect(() => host.answerQuestion(q!.callId, { choices: [], text: "Redis" })).toThrow(/no text/);
  host.answerQuestion(q!.callId, { dismissed: true });
  expect(await turn).toBe("done");
  expect(toolResult(llm.chatRequests()[1]!.body)).toBe("The user dismissed the question without answering.");
});

test("cancelling the turn dismisses the waiting question", async () => {
  const { host } = await setup([{ toolCalls: [{ name: "ask", arguments: ASK }] }, { text: "unused" }]);
  const events = collect(host.session);
  const turn = host.submit("set up");
  await pollFor("a question waiting", () => host.questions(), (qs) => qs.length === 1);
  host.session.cancel();
  expect(await turn).toBe("cancelled");
  expect(host.questions()).toEqual([]);
  expect(events.find((e) => e.type === "question_resolved")).toMatchObject({ answer: { dismissed: true } });
});

test("headless: nobody is asked; the turn ends as needs_user and names the question", async () => {
  const { llm, host } = await setup([{ toolCalls: [{ name: "ask", arguments: ASK }] }, { text: "must not be asked for" }], { headless: true, mode: "yolo" });
  const events = collect(host.session);
  expect(await host.submit("set up")).toBe("needs_user");
  expect(events.some((e) => e.type === "question_request")).toBe(false);
  const end = events.find((e) => e.type === "turn_end");
  expect(end).toMatchObject({ reason: "needs_user" });
  expect((end as { error?: string }).error).toContain('"Which database?"');
  expect(llm.chatRequests()).toHaveLength(1);
});
