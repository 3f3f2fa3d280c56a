// ACP steering at a turn's end: guidance sent (the steering method) while the
// prompt's turn is finishing — it has read guidance for the last time, its log
// is still being synced — is answered by the same prompt in one more turn,
// before the prompt returns, instead of waiting unseen for the next prompt.
// The agent's session class over a real engine and the scripted model; the
// editor's side is a recording port.
import type * as acp from "@agentclientprotocol/sdk";
import { afterEach, expect, test } from "bun:test";
import { AcpSession } from "../session.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { engineFor, holdTurnEnd, makeSandbox } from "../../engine/tests/helpers.ts";
import { quietLog } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const text = (t: string): acp.ContentBlock[] => [{ type: "text", text: t }];

test("guidance sent while the prompt's turn is finishing is answered by that prompt before it returns", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ text: "first answer" }, { text: "late words answered" }]);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const live = await engine.createSession();
  const updates: acp.SessionNotification[] = [];
  const port = { notify: async (u: acp.SessionNotification) => void updates.push(u), requestPermission: async () => ({ outcome: { outcome: "cancelled" as const } }), log: quietLog() };
  const session = new AcpSession(live, engine, port, "auto");
  cleanups.push(() => live.close());
  const { atEnd, release } = holdTurnEnd(live);
  cleanups.push(() => release.resolve());
  const answered = session.prompt(text("say something"));
  await atEnd.promise;
  expect(session.steer(text("also say goodbye"))).toBe("steer_accepted");
  release.resolve();
  expect(await answered).toEqual({ stopReason: "end_turn" });
  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(2);
  expect(reqs[1]!.body.messages.at(-1)).toEqual({ role: "user", content: "also say goodbye" });
  expect(live.turns().map((t) => t.prompt)).toEqual(["say something", "also say goodbye"]);
  const said = updates.flatMap((u) => (u.update.sessionUpdate === "agent_message_chunk" && u.update.content.type === "text" ? [u.update.content.text] : [])).join("");
  expect(said).toContain("late words answered");
});
