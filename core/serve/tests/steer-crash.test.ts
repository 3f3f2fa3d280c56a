// Text steered into a finishing turn survives kill -9 of a real `reasonix
// serve`: the turn is held in its Stop hook (after it read guidance for the
// last time, before it settles), the text is steered with start_if_idle, and
// it is on disk (0600, the session's queue file) before the API answers. The
// process is killed there; a new server on the same home has it as a queued
// prompt, paused ("crash") like any queued prompt, and sends it once resumed.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, closeSync, constants, existsSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import { pollFor } from "../../testing/fresh-wait.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { cleanup, restartableServe, tempDir, type ServeProc } from "./helpers.ts";

setDefaultTimeout(240_000);
const TOKEN = "steer-crash-token-0123456789abcdefghij";
const dir = tempDir("steer-crash");
const servers: ServeProc[] = [];
const fifo = join(dir, "stop-gate");
afterAll(async () => {
  // The hook the killed server left waiting on the gate: let it go (no reader left: nothing to do).
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {}
  for (const s of servers) if (s.proc.exitCode === null) await s.stop().catch(() => {});
  cleanup(dir);
});

test("kill -9 while a steered text waits for the finishing turn: it comes back as a paused queued prompt and is sent once resumed", async () => {
  if (Bun.spawnSync(["mkfifo", fifo]).exitCode !== 0) {
    console.log("SKIPPED steer-crash: mkfifo is not available");
    return;
  }
  const llm = await startScriptedOpenAI([{ text: "first answer" }]);
  try {
    const { home, start, call } = restartableServe(dir, llm.url, TOKEN, servers);
    const mark = join(dir, "in-stop-hook");
    // The first turn's Stop hook marks that it runs and waits on the gate; later turns' pass (the mark is there).
    appendFileSync(join(home, "config.toml"), `\n[sandbox]\nbash = "off"\n\n[[hooks]]\nevent = "Stop"\ncommand = ${JSON.stringify(`[ -e '${mark}' ] || { touch '${mark}'; cat '${fifo}' > /dev/null; }`)}\ntimeout_seconds = 200\n`);

    const first = await start();
    const { id } = (await call(first, "/api/sessions", "POST", {})).body as { id: string };
    expect((await call(first, `/api/sessions/${id}/prompt`, "POST", { prompt: "the first prompt" })).status).toBe(202);
    await pollFor("the turn held in its Stop hook", () => existsSync(mark), (there) => there);
    const steered = await call(first, `/api/sessions/${id}/steer`, "POST", { text: "steered as it finished", start_if_idle: true });
    expect(steered.body.disposition).toBe("started_turn");
    // On disk when the API answered: no wait needed.
    const file = join(home, "sessions", id, "queue.json");
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    first.proc.kill("SIGKILL");
    expect(await first.proc.exited).not.toBe(0);

    llm.push({ text: "answer to the steered text" });
    const second = await start();
    const q = (await call(second, `/api/sessions/${id}/queue`)).body.queue;
    expect([q.paused, q.pausedWhy]).toEqual([true, "crash"]);
    expect(q.items.map((i: any) => i.preview)).toEqual(["steered as it finished"]);
    // Paused: nothing was sent by the new server.
    expect(llm.chatRequests()).toHaveLength(1);

    expect((await call(second, `/api/sessions/${id}/queue`, "POST", { action: "resume" })).body.started).toBe(true);
    await pollFor("the steered text sent", () => llm.chatRequests().length, (n) => n === 2);
    expect(llm.chatRequests()[1]!.body.messages.at(-1)).toEqual({ role: "user", content: "steered as it finished" });
    await pollFor("the queue consumed", () => call(second, `/api/sessions/${id}/queue`), (r) => r.body.queue.items.length === 0 && !r.body.queue.running);
    await pollFor("the last turn over", () => call(second, `/api/sessions/${id}/history`), (r) => r.body.busy === false);
    expect(existsSync(file)).toBe(false);
  } finally {
    await llm.close();
  }
});
