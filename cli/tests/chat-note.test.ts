// `#note` in the terminal chat (real tmux pane): in ask mode a yes/no prompt,
// then the note is in the project's instruction file; nothing reaches the
// model; "no" writes nothing. In auto mode it is written at once.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chatFixture, hasTmux, ready } from "./chat-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED terminal chat #note tests: tmux is not installed (apt-get install tmux)");

const f = chatFixture();

describe.skipIf(skip)("#note in the terminal chat", () => {
  test("ask mode: yes appends to a new AGENTS.md, no writes nothing; auto mode writes at once; the model gets none of it", async () => {
    await f.setup([{ text: "model answer" }]);
    const agents = join(f.ce.workspace, "AGENTS.md");
    const p = f.chat();
    await ready(p);
    p.send("#run tests with bun test");
    await p.waitFor("Add this note to AGENTS.md (a new file)?");
    p.keys("Enter"); // "yes" is first
    await p.waitFor("noted in AGENTS.md (new file)");
    expect(readFileSync(agents, "utf8")).toBe("- run tests with bun test\n");

    p.send("#never push to main");
    await p.waitFor("Add this note to AGENTS.md?");
    p.keys("Down");
    p.keys("Enter");
    await p.waitFor("note not added");
    expect(readFileSync(agents, "utf8")).toBe("- run tests with bun test\n");

    p.keys("BTab");
    await p.waitFor("mode auto");
    p.send("#prefer small commits");
    await p.waitFor("noted in AGENTS.md;");
    expect(readFileSync(agents, "utf8")).toBe("- run tests with bun test\n- prefer small commits\n");
    // A heading-like message with a body is an ordinary prompt.
    p.send("## not a note");
    await p.waitFor("model answer");
    expect(f.llm.chatRequests()).toHaveLength(1);
    expect(JSON.stringify(f.llm.chatRequests()[0]!.body.messages)).not.toContain("bun test");
    expect(existsSync(join(f.ce.workspace, "CLAUDE.md"))).toBe(false);
  });
});
