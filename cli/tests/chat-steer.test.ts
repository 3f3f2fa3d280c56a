// Steering from the terminal chat (real tmux pane, scripted model with a
// delay): Enter while a turn runs hands the text to that turn; it reaches the
// model's next request within the same turn and shows as steering.
import { describe, expect, test } from "bun:test";
import { steerMessage } from "../../core/engine/session.ts";
import { chatFixture, hasTmux, ready } from "./chat-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED terminal chat steering tests: tmux is not installed (apt-get install tmux)");

const f = chatFixture();

describe.skipIf(skip)("steering from the terminal chat", () => {
  test("Enter during a turn steers it: the text is in the next request of the same turn, marked as steering", async () => {
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    // The first answer waits until the steering line is on screen.
    await f.setup([{ text: "first draft", until: held }, { text: "revised with tabs" }]);
    const p = f.chat();
    await ready(p);
    p.send("write the config");
    await p.waitFor("Esc cancels");
    p.send("use tabs, not spaces");
    // Shown at once with its disposition, not queued.
    let s = await p.waitFor("» use tabs, not spaces");
    expect(s).toContain("steering · sent to the running turn");
    expect(s).not.toContain("queued ›");
    release();
    s = await p.waitFor("revised with tabs");
    const reqs = f.llm.chatRequests();
    expect(reqs).toHaveLength(2);
    const second = reqs[1]!.body.messages;
    expect(second.at(-1)).toEqual({ role: "user", content: steerMessage("use tabs, not spaces") });
    expect(second.at(-2)).toMatchObject({ role: "assistant", content: "first draft" });
    // One turn: the typed prompt was sent once, the guidance did not start another turn.
    expect(second.filter((m: any) => m.role === "user" && m.content === "write the config")).toHaveLength(1);
    expect(s.match(/› write the config/g)).toHaveLength(1);
    expect(s).not.toContain("› use tabs");
    // The steering line moved into the scrollback, after the first answer.
    const all = p.all();
    expect(all.indexOf("» use tabs")).toBeGreaterThan(all.indexOf("first draft"));
    expect(all.indexOf("» use tabs")).toBeLessThan(all.indexOf("revised with tabs"));
  });
});
