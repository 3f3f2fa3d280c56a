// The queue survives kill -9 of a real `reasonix serve` process: prompts
// queued while a turn runs are on disk (0600, beside the session's log)
// before the API answers; the process is killed with SIGKILL mid-turn; a new
// server on the same home finds them paused ("crash"), sends nothing until
// the user resumes, then sends them in order.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { pollFor } from "../../testing/fresh-wait.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { cleanup, restartableServe, tempDir, type ServeProc } from "./helpers.ts";

setDefaultTimeout(240_000);
const TOKEN = "crash-token-0123456789abcdefghijklmn";
const dir = tempDir("queue-crash");
const servers: ServeProc[] = [];
const gate = Promise.withResolvers<void>();
afterAll(async () => {
  gate.resolve();
  for (const s of servers) if (s.proc.exitCode === null) await s.stop().catch(() => {});
  cleanup(dir);
});

test("kill -9 mid-turn: the queued prompts come back paused, and run in order once resumed", async () => {
  const llm = await startScriptedOpenAI([{ text: "held answer", until: gate.promise }]);
  try {
    const { home, start, call } = restartableServe(dir, llm.url, TOKEN, servers);

    const first = await start();
    const { id } = (await call(first, "/api/sessions", "POST", {})).body as { id: string };
    expect((await call(first, `/api/sessions/${id}/prompt`, "POST", { prompt: "the first prompt" })).status).toBe(202);
    await pollFor("the held request", () => llm.chatRequests().length, (n) => n === 1);
    expect((await call(first, `/api/sessions/${id}/queue`, "POST", { text: "queued one" })).status).toBe(201);
    expect((await call(first, `/api/sessions/${id}/queue`, "POST", { text: "queued two" })).status).toBe(201);
    // On disk when the API answered: no wait needed.
    const file = join(home, "sessions", id, "queue.json");
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    first.proc.kill("SIGKILL");
    expect(await first.proc.exited).not.toBe(0);

    llm.push({ text: "answer one" }, { text: "answer two" });
    const second = await start();
    const q = (await call(second, `/api/sessions/${id}/queue`)).body.queue;
    expect([q.paused, q.pausedWhy]).toEqual([true, "crash"]);
    expect(q.items.map((i: any) => i.preview)).toEqual(["queued one", "queued two"]);
    // Paused: nothing was sent by the new server.
    expect(llm.chatRequests()).toHaveLength(1);
    const text = (await call(second, `/api/sessions/${id}/command`, "POST", { name: "queue", arg: "list" })).body.text as string;
    expect(text).toContain("paused: the process that held it ended without finishing (a crash?)");

    expect((await call(second, `/api/sessions/${id}/queue`, "POST", { action: "resume" })).body.started).toBe(true);
    await pollFor("both queued prompts sent", () => llm.chatRequests().length, (n) => n === 3);
    const users = llm.chatRequests().slice(1).map((r) => r.body.messages.filter((m: any) => m.role === "user").at(-1).content);
    expect(users).toEqual(["queued one", "queued two"]);
    await pollFor("the queue consumed", () => call(second, `/api/sessions/${id}/queue`), (r) => r.body.queue.items.length === 0 && !r.body.queue.running);
    await pollFor("the last turn over", () => call(second, `/api/sessions/${id}/history`), (r) => r.body.busy === false);
    expect(existsSync(file)).toBe(false);
  } finally {
    await llm.close();
  }
});
