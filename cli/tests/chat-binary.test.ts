// The compiled binary's chat, as users meet it: plain `reasonix` in a tmux
// pane, a streamed answer, an approval, and the session afterwards in the
// binary's own `reasonix sessions`.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { answer, chatFixture, compiledChat } from "./chat-helpers.ts";

const { skip, binary } = compiledChat("compiled-binary chat test");

const f = chatFixture();

describe.skipIf(skip)("compiled binary: plain `reasonix` opens the chat", () => {
  test("markdown answer, approval writes the file, session listed by the binary", async () => {
    await f.setup([
      { text: "## Plan\n\n- **write** the file\n- report back\n" },
      { toolCalls: [{ name: "write_file", arguments: { path: "bin.txt", content: "from the binary\n" } }] },
      { text: "Done: bin.txt written." },
    ]);
    const { ce } = f;
    const p = f.chat([], { bin: [binary()] });
    await p.waitFor("mode ask");
    p.send("plan it");
    let s = await p.waitFor("report back");
    expect(s).toContain("Plan");
    expect(s).not.toContain("## Plan");
    p.send("write it");
    await p.waitFor("Allow write_file");
    await answer(p, 1);
    s = await p.waitFor("Done: bin.txt written.");
    expect(readFileSync(join(ce.workspace, "bin.txt"), "utf8")).toBe("from the binary\n");
    p.keys("C-c");
    p.keys("C-c");
    s = await p.waitFor("[exit 0]", { all: true });
    const id = /reasonix chat --resume (\S+)/.exec(s)![1]!;
    const list = Bun.spawnSync([binary(), "sessions", "list", "--json"], { cwd: ce.workspace, env: ce.env });
    expect(list.exitCode).toBe(0);
    expect(list.stdout.toString()).toContain(id);
  });
});
