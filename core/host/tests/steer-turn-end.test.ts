// Nothing steered is lost at a turn's end. A turn reads guidance for the last
// time when its model answers without tools; after that it is still finishing
// (its log synced to disk, turn_end reported, the host's turn settling). Text
// steered in that window used to be accepted for the running turn, which
// never read it, and no turn started: the user's message went unanswered.
// Now the engine says the finishing turn no longer takes guidance, and the
// host (start-if-idle, as the chat, the web UI and serve steer) starts the
// next turn with the text. Real engine and host, scripted model over HTTP.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { holdTurnEnd, until } from "../../engine/tests/helpers.ts";
import { hostRig, nextPromptCarries } from "./host-rig.ts";

const { cleanups, setup } = hostRig();

/** The session's log on disk: the records' types and the turns' prompts. */
function logOnDisk(home: string, id: string): { t: string; prompt?: string }[] {
  return readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** A turn on `prompt` held where its loop has decided it is over (turn_end appended, its sync waiting): release it with `release`. */
async function heldAtEnd(script: Parameters<typeof setup>[0], prompt: string) {
  const rig = await setup(script);
  const { atEnd, release } = holdTurnEnd(rig.host.session);
  cleanups.push(() => release.resolve());
  const first = rig.host.submit(prompt);
  await atEnd.promise;
  // The engine still reports the turn busy: the chat steers on that.
  expect(rig.host.session.busy).toBe(true);
  return { ...rig, s: rig.host.session, first, release: () => release.resolve() };
}

test("text steered while the turn syncs its end to disk (after its last check for guidance) starts the next turn and is answered", async () => {
  const { sb, llm, host, s, first, release } = await heldAtEnd([{ text: "first answer" }, { text: "answer to the late words" }], "say something");
  const second = until(s, (e) => e.type === "turn_start" && e.prompt === "also say goodbye");
  const disposition = host.steer("also say goodbye", { startIfIdle: true });
  release();
  expect(await first).toBe("done");
  // The first turn has settled and the next one runs with the steered text.
  expect(host.busy).toBe(true);
  expect(disposition).toBe("started_turn");
  await second;
  expect(await host.turn).toBe("done");
  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(2);
  expect(reqs[1]!.body.messages.at(-1)).toEqual({ role: "user", content: "also say goodbye" });
  const log = logOnDisk(sb.home, s.id);
  expect(log.filter((r) => r.t === "turn_start").map((r) => r.prompt)).toEqual(["say something", "also say goodbye"]);
  expect(log.filter((r) => r.t === "turn_end")).toHaveLength(2);
});

test("text steered when the turn has reported its end but the host's turn has not settled starts the next turn", async () => {
  const { sb, llm, host } = await setup([{ text: "first answer" }, { text: "second answer" }]);
  const s = host.session;
  let disposition: string | undefined;
  let busy: boolean | undefined;
  // A front end hears turn_end before the turn's promise settles: the host is still busy then.
  const off = s.subscribe((e) => {
    if (e.type !== "turn_end" || disposition) return;
    busy = host.busy;
    disposition = host.steer("one more thing", { startIfIdle: true });
  });
  cleanups.push(off);
  const second = until(s, (e) => e.type === "turn_start" && e.prompt === "one more thing");
  expect(await host.submit("first")).toBe("done");
  expect(host.busy).toBe(true);
  expect(busy).toBe(true);
  expect(disposition).toBe("started_turn");
  await second;
  expect(await host.turn).toBe("done");
  expect(llm.chatRequests()).toHaveLength(2);
  expect(llm.chatRequests()[1]!.body.messages.at(-1)).toEqual({ role: "user", content: "one more thing" });
  expect(logOnDisk(sb.home, s.id).filter((r) => r.t === "turn_start").map((r) => r.prompt)).toEqual(["first", "one more thing"]);
});

test("several texts steered into a finishing turn start one next turn, in the order sent", async () => {
  const { llm, host, s, first, release } = await heldAtEnd([{ text: "first answer" }, { text: "both answered" }], "go");
  const second = until(s, (e) => e.type === "turn_start" && e.prompt === "one\n\ntwo");
  const said = [host.steer("one", { startIfIdle: true }), host.steer("two", { startIfIdle: true })];
  release();
  expect(await first).toBe("done");
  expect(host.busy).toBe(true);
  expect(said).toEqual(["started_turn", "started_turn"]);
  await second;
  expect(await host.turn).toBe("done");
  expect(llm.chatRequests()).toHaveLength(2);
  expect(llm.chatRequests()[1]!.body.messages.at(-1)).toEqual({ role: "user", content: "one\n\ntwo" });
});

test("without startIfIdle the finishing turn is not said to take the text: it waits for the next turn (queued_followup), honestly", async () => {
  const { llm, host, s, first, release } = await heldAtEnd([{ text: "first answer" }, { text: "second answer" }], "go");
  expect(s.takesSteering).toBe(false);
  expect(host.steer("for later")).toBe("queued_followup");
  release();
  expect(await first).toBe("done");
  await nextPromptCarries({ host, llm }, 1, "for later");
});

test("idle text while the front end's last turn is still settling (queueIdle) starts through its runner when it pumps", async () => {
  const { llm, host } = await setup([{ text: "first answer" }, { text: "second answer" }]);
  expect(await host.submit("first")).toBe("done");
  // serve: the host's turn has settled, the server's bookkeeping for it has not.
  let settling = true;
  const ran: string[] = [];
  host.queueIdle = () => !settling;
  host.queueRunner = (text) => (ran.push(text), host.submit(text));
  expect(host.steer("right after", { startIfIdle: true })).toBe("started_turn");
  expect(host.busy).toBe(false);
  settling = false;
  expect(host.pumpQueue()).toBe(true);
  expect(ran).toEqual(["right after"]);
  expect(await host.turn).toBe("done");
  expect(llm.chatRequests()[1]!.body.messages.at(-1)).toEqual({ role: "user", content: "right after" });
});
