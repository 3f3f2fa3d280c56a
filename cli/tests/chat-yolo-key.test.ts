// Ctrl+Y in the compiled binary's chat (tmux): YOLO on, shown in the status
// line, and again back to the mode it replaced.
import { describe, expect, test } from "bun:test";
import { chatFixture, compiledChat, quit, ready } from "./chat-helpers.ts";

const { skip, binary } = compiledChat("chat Ctrl+Y test");
const f = chatFixture();

describe.skipIf(skip)("compiled binary: Ctrl+Y", () => {
  test("Ctrl+Y switches YOLO on, shown in the status line, and again back to the mode before", async () => {
    await f.setup([]);
    const p = f.chat(["chat", "--permission-mode", "auto"], { bin: [binary()] });
    await ready(p);
    expect(p.screen()).toContain("mode auto");
    p.keys("C-y");
    let s = await p.waitFor("mode yolo");
    expect(s).not.toContain("mode auto");
    p.keys("C-y");
    s = await p.waitFor((x) => x.includes("mode auto") && !x.includes("mode yolo"));
    await quit(p);
  });
});
