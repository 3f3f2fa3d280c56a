// A cancel that arrives while the server is still accepting a prompt (loading
// the session from disk) must stop the turn that prompt starts. Esc right
// after Enter in the web UI sends exactly that pair of requests; before this
// was handled the cancel found no turn, was dropped, and the turn ran on.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { resolve } from "node:path";
import type { Engine } from "../../engine/types.ts";
import { engineFactoryFromConfig } from "../engine.ts";
import { startServer, type RunningServer } from "../server.ts";
import { startApiRig, type ApiRig } from "./api-rig.ts";
import { waitFor } from "./helpers.ts";

setDefaultTimeout(60_000);
let rig: ApiRig;
let second: RunningServer | undefined;

beforeAll(async () => {
  rig = await startApiRig("cancel-race");
});
afterAll(async () => {
  await second?.stop();
  await rig?.close();
});

const TOKEN = "cancel-race-second-0123456789abcdefgh";

test("a cancel sent while the prompt's session is still loading cancels that turn", async () => {
  // A session with one finished turn, on disk.
  const { body: created } = await rig.call("/api/sessions", "POST", {});
  const id = created.id as string;
  rig.llm.push({ text: "first answer" });
  expect((await rig.call(`/api/sessions/${id}/prompt`, "POST", { prompt: "hello" })).status).toBe(202);
  // Not busy before the turn has started proves nothing: the model's request must have come first.
  await waitFor("the first turn's end", async () => rig.llm.chatRequests().length === 1 && !(await rig.call(`/api/sessions/${id}/resume`, "POST")).body.busy, 20_000);

  // The first server lets go of it; a second server on the same home and
  // workspace has it on disk but not loaded. Its resume waits on a gate the test opens.
  await rig.server.stop();
  let reached = false;
  const { promise: gate, resolve: open } = Promise.withResolvers<void>();
  const real = await engineFactoryFromConfig(rig.home);
  second = await startServer({
    host: "127.0.0.1",
    port: 0,
    auth: { mode: "token", token: TOKEN },
    workspace: resolve(rig.home, "..", "ws"),
    version: "test",
    defaultModel: "s",
    engineFactory: async (o) => {
      const engine = await real(o);
      return new Proxy(engine, {
        get(t, p) {
          if (p === "resumeSession") {
            return async (...a: Parameters<Engine["resumeSession"]>) => {
              reached = true;
              await gate;
              return t.resumeSession(...a);
            };
          }
          const v = Reflect.get(t, p, t);
          return typeof v === "function" ? v.bind(t) : v;
        },
      });
    },
  });
  const call = (path: string, method: string, body?: unknown) =>
    fetch(`http://${second!.addr}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: method === "GET" ? undefined : JSON.stringify(body ?? {}) });

  rig.llm.push({ text: "this would take a minute", delayMs: 60_000 });
  const prompt = call(`/api/sessions/${id}/prompt`, "POST", { prompt: "take your time" });
  await waitFor("the prompt to be loading the session", () => reached, 20_000);
  const cancel = await call(`/api/sessions/${id}/cancel`, "POST");
  expect(cancel.status).toBe(200);
  expect(await cancel.json()).toEqual({ cancelled: true });
  open();
  const accepted = await prompt;
  expect(accepted.status, await accepted.clone().text()).toBe(202);

  // The turn ends as cancelled in seconds, not after the model's minute.
  const started = Date.now();
  const ends = await waitFor(
    "the cancelled turn's end",
    async () => {
      const h = (await (await call(`/api/sessions/${id}/history`, "GET")).json()) as { events: { type: string; reason?: string }[] };
      const e = h.events.filter((x) => x.type === "turn_end");
      return e.length === 2 ? e : undefined;
    },
    15_000,
  );
  expect(ends[1]!.reason).toBe("cancelled");
  expect(Date.now() - started).toBeLessThan(15_000);
});

test("a cancel with nothing running or starting answers cancelled: false", async () => {
  const call = (path: string) => fetch(`http://${second!.addr}${path}`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: "{}" });
  const { id } = (await (await call("/api/sessions")).json()) as { id: string };
  expect(await (await call(`/api/sessions/${id}/cancel`)).json()).toEqual({ cancelled: false });
});
