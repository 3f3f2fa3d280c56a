// The model's question (the `ask` tool) is in the session log: kill -9 of a
// real `reasonix serve` while a question waits, and a new server on the same
// home shows the question in the transcript, marked as not answered because
// the session stopped (nothing waits: the turn died with the process), and
// the model is told so. A question answered later is in the reopened
// transcript with its answer.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { foldTranscript, type ToolBlock } from "../../protocol/fold.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { cleanup, restartableServe, tempDir, waitFor, type ServeProc } from "./helpers.ts";

setDefaultTimeout(240_000);
const TOKEN = "ask-crash-token-0123456789abcdefghijk";
const dir = tempDir("ask-crash");
const servers: ServeProc[] = [];
afterAll(async () => {
  for (const s of servers) if (s.proc.exitCode === null) await s.stop().catch(() => {});
  cleanup(dir);
});

const askBlocks = (events: any[]) => foldTranscript(events).blocks.filter((b): b is ToolBlock => b.kind === "tool" && (b as ToolBlock).name === "ask");

test("kill -9 while a question waits: the reopened session shows it, not answered; a later answered one shows with its answer", async () => {
  const llm = await startScriptedOpenAI([{ toolCalls: [{ name: "ask", arguments: { question: "Tabs or spaces?", options: [{ label: "tabs" }, { label: "spaces" }] } }] }]);
  try {
    const { start, call } = restartableServe(dir, llm.url, TOKEN, servers);
    const history = async (s: ServeProc, id: string) => (await call(s, `/api/sessions/${id}/history`)).body as { busy: boolean; events: any[] };

    const first = await start();
    const { id } = (await call(first, "/api/sessions", "POST", {})).body as { id: string };
    expect((await call(first, `/api/sessions/${id}/prompt`, "POST", { prompt: "format it" })).status).toBe(202);
    await waitFor("the question waiting", async () => (await history(first, id)).events.some((e) => e.type === "question_request"));

    first.proc.kill("SIGKILL");
    expect(await first.proc.exited).not.toBe(0);

    const second = await start();
    const h = await history(second, id);
    expect(h.busy).toBe(false);
    const [crashed] = askBlocks(h.events);
    expect(crashed?.question).toMatchObject({ question: "Tabs or spaces?", options: [{ label: "tabs" }, { label: "spaces" }], multi: false });
    expect(crashed?.answer).toEqual({ dismissed: true, reason: "the session stopped before it was answered" });
    expect(crashed?.status).toBe("failed");
    // Nothing waits for an answer: the turn it belonged to ended with the process.
    const pending = h.events.filter((e) => e.type === "question_request").filter((q) => !h.events.some((r) => r.type === "question_resolved" && r.callId === q.callId));
    expect(pending).toEqual([]);

    // The next turn: the model was told the question went unanswered; it asks again and gets the answer.
    llm.push({ toolCalls: [{ name: "ask", arguments: { question: "Tabs or spaces, again?", options: [{ label: "tabs" }, { label: "spaces" }] } }] }, { text: "spaces it is" });
    expect((await call(second, `/api/sessions/${id}/prompt`, "POST", { prompt: "go on" })).status).toBe(202);
    const q = await waitFor("the second question waiting", async () => (await history(second, id)).events.find((e) => e.type === "question_request" && e.question === "Tabs or spaces, again?"));
    expect(llm.chatRequests()[1]!.body.messages.find((m: any) => m.role === "tool").content).toContain("the session stopped while the question waited");
    expect((await call(second, `/api/sessions/${id}/questions/${encodeURIComponent(q.callId)}`, "POST", { choices: ["spaces"] })).status).toBe(200);
    await waitFor("the turn over", async () => (await history(second, id)).busy === false);
    second.proc.kill("SIGKILL");
    await second.proc.exited;

    const third = await start();
    const blocks = askBlocks((await history(third, id)).events);
    expect(blocks.map((b) => [b.question?.question, b.answer, b.status])).toEqual([
      ["Tabs or spaces?", { dismissed: true, reason: "the session stopped before it was answered" }, "failed"],
      ["Tabs or spaces, again?", { choices: ["spaces"] }, "ok"],
    ]);
  } finally {
    await llm.close();
  }
});
