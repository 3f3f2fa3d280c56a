// `/compact` in the terminal chat (real tmux pane, scripted model): the
// model summarizes the earlier conversation on demand and the next request
// carries the summary instead of the old middle, with the system prompt and
// the tool block byte-identical.
import { describe, expect, test } from "bun:test";
import { chatFixture, hasTmux, ready } from "./chat-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED terminal chat /compact tests: tmux is not installed (apt-get install tmux)");

const f = chatFixture();
const isCompactionRequest = (req: { body: any }) => String(req.body.messages.at(-1)?.content).includes("<compaction-request>");

describe.skipIf(skip)("/compact in the terminal chat", () => {
  test("summarizes on demand; the next request has the summary, not the old middle", async () => {
    await f.setup([
      { text: "OLD-ANSWER-ONE with details" },
      { text: "second answer" },
      (req) => (isCompactionRequest(req) ? { text: "Goal: chatting. CHAT-SUMMARY" } : { kind: "error", status: 400, message: "expected a compaction request" }),
      { text: "answer after compaction" },
    ]);
    const p = f.chat();
    await ready(p);
    p.send("OLD-QUESTION-ONE");
    await p.waitFor("OLD-ANSWER-ONE");
    p.send("second question");
    await p.waitFor("second answer");
    p.send("/compact");
    await p.waitFor(/compacted \d+ earlier messages into a summary/);
    p.send("third question");
    await p.waitFor("answer after compaction");
    const reqs = f.llm.chatRequests();
    expect(reqs).toHaveLength(4);
    expect(isCompactionRequest(reqs[2]!)).toBe(true);
    const before = reqs[1]!.body;
    const after = reqs[3]!.body;
    expect(JSON.stringify(after.messages[0])).toBe(JSON.stringify(before.messages[0]));
    expect(after.messages[0].role).toBe("system");
    expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
    const text = JSON.stringify(after.messages);
    expect(text).toContain("CHAT-SUMMARY");
    expect(text).not.toContain("OLD-QUESTION-ONE");
    expect(text).not.toContain("OLD-ANSWER-ONE");
    expect(after.messages.at(-1)).toMatchObject({ role: "user", content: "third question" });
  });

  test("a too-short conversation says so and sends nothing", async () => {
    await f.setup([{ text: "only answer" }]);
    const p = f.chat();
    await ready(p);
    p.send("hello");
    await p.waitFor("only answer");
    p.send("/compact");
    await p.waitFor("nothing to compact yet");
    expect(f.llm.chatRequests()).toHaveLength(1);
  });
});
