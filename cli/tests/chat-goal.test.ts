// /goal in the terminal chat (real tmux pane, scripted model): the goal drives
// turns on its own until update_goal complete; /goal status, pause and resume.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chatFixture, hasTmux, ready } from "./chat-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED terminal chat goal tests: tmux is not installed (apt-get install tmux)");

const f = chatFixture();
const report = (status: string, evidence: string) => ({ name: "update_goal", arguments: { status, evidence } });

describe.skipIf(skip)("/goal in the terminal chat", () => {
  test("/goal <objective> works across turns until complete; /goal status shows the statistics", async () => {
    await f.setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "a" } }, report("continue", "a.txt written")] },
      { text: "first part" },
      { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "b" } }, report("complete", "both files written")] },
      { text: "second part" },
    ]);
    const p = f.chat(["chat", "--permission-mode", "auto"]);
    await ready(p);
    p.send("/goal write a.txt and b.txt");
    await p.waitFor("goal complete: both files written", { all: true });
    const all = p.all();
    expect(all).toContain("goal started: write a.txt and b.txt");
    expect(all).toContain("› goal turn 1");
    expect(all).toContain("› goal turn 2");
    expect(all).not.toContain("sent from the browser UI");
    expect(readFileSync(join(f.ce.workspace, "b.txt"), "utf8")).toBe("b");
    p.send("/goal status");
    const s = await p.waitFor("status: complete");
    expect(s).toMatch(/2 turns · 4 requests/);
  });

  test("/goal pause lands after the running turn; /goal resume continues to complete", async () => {
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    // The first turn's answer waits until the pause has been asked for.
    await f.setup([
      { toolCalls: [report("continue", "looked around")], until: held },
      { text: "turn one" },
      { toolCalls: [report("complete", "finished after resume")] },
      { text: "done" },
    ]);
    const p = f.chat(["chat", "--permission-mode", "auto"]);
    await ready(p);
    p.send("/goal tidy up");
    await p.waitFor("Esc cancels");
    p.send("/goal pause");
    await p.waitFor("the goal pauses when the running turn ends");
    release();
    await p.waitFor("goal paused: paused by the user", { all: true });
    expect(f.llm.chatRequests()).toHaveLength(2);
    p.send("/goal resume");
    await p.waitFor("goal complete: finished after resume", { all: true });
    expect(f.llm.chatRequests()).toHaveLength(4);
  });
});
