// The chat's `!command` in the compiled binary (tmux): the line runs in the
// shell through the session's rules and mode, shows as a bash card, and its
// output reaches the model with the next message (in that user turn, never in
// the system prompt or the tools).
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { answer, chatFixture, compiledChat, quit, ready } from "./chat-helpers.ts";

const { skip, binary } = compiledChat("chat shell line tests");
const f = chatFixture();

describe.skipIf(skip)("compiled binary: !command in the chat", () => {
  test("!ls asks under an ask rule, shows its output as a bash card, and the output is in the next prompt's user message", async () => {
    await f.setup([{ text: "I see the marker file." }], '[permissions]\nask = ["Bash(ls:*)"]\n');
    writeFileSync(join(f.ce.workspace, "marker-7431.txt"), "x\n");
    const p = f.chat([], { bin: [binary()] });
    await ready(p);
    p.send("!ls");
    // The ask rule holds for the user's own line too.
    await p.waitFor("↑↓ then Enter to answer");
    await answer(p, 1);
    let all = await p.waitFor("marker-7431.txt", { all: true });
    expect(all).toContain("bash ls");
    expect(all).toContain("its output goes to the model with your next message");
    // Nothing went to the model yet.
    expect(f.llm.chatRequests()).toHaveLength(0);
    p.send("what is in the folder?");
    all = await p.waitFor("I see the marker file.", { all: true });
    const reqs = f.llm.chatRequests();
    expect(reqs).toHaveLength(1);
    const body = reqs[0]!.body;
    const users = body.messages.filter((m: any) => m.role === "user");
    const last = users.at(-1)!;
    expect(last.content).toContain("$ ls");
    expect(last.content).toContain("marker-7431.txt");
    expect(last.content).toContain("what is in the folder?");
    // Only there: not in the system prompt, not in the tool schemas.
    const others = JSON.stringify({ tools: body.tools, system: body.messages.filter((m: any) => m.role === "system") });
    expect(others).not.toContain("marker-7431.txt");
    await quit(p);
  });

  test("a deny rule holds for !command, and read-only mode refuses a write: neither runs nor reaches the model", async () => {
    await f.setup([{ text: "noted" }], '[permissions]\ndeny = ["Bash(touch:*)"]\n');
    const p = f.chat([], { bin: [binary()] });
    await ready(p);
    p.send("!touch denied-1.txt");
    let all = await p.waitFor("permission denied", { all: true });
    expect(existsSync(join(f.ce.workspace, "denied-1.txt"))).toBe(false);
    await quit(p);

    const r = f.chat(["chat", "--permission-mode", "read-only"], { bin: [binary()] });
    await ready(r);
    r.send("!mkdir made-2");
    all = await r.waitFor("permission denied", { all: true });
    expect(existsSync(join(f.ce.workspace, "made-2"))).toBe(false);
    expect(all).not.toContain("its output goes to the model");
    r.send("hello");
    await r.waitFor("noted", { all: true });
    const last = f.llm.chatRequests()[0]!.body.messages.at(-1)!;
    expect(last).toEqual({ role: "user", content: "hello" });
    await quit(r);
  });

  test("the output of !command survives quitting: --resume shows its bash card and the next prompt carries it (real session files)", async () => {
    await f.setup([{ text: "resumed and saw it" }]);
    const p = f.chat([], { bin: [binary()] });
    await ready(p);
    p.send("!echo kept-out-63");
    await answer(p, 1);
    await p.waitFor("its output goes to the model with your next message", { all: true });
    await quit(p);
    const dir = join(f.ce.home, "sessions");
    const logs = readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
    expect(logs).toHaveLength(1);
    expect(readFileSync(join(dir, logs[0]!), "utf8")).toContain('"t":"shell"');
    const r = f.chat(["chat", "--resume", logs[0]!.slice(0, -6)], { bin: [binary()] });
    await ready(r);
    // The stored conversation shows the card again.
    const shown = await r.waitFor("kept-out-63", { all: true });
    expect(shown).toContain("bash echo kept-out-63 · you ran this");
    expect(f.llm.chatRequests()).toHaveLength(0);
    r.send("what did it print?");
    await r.waitFor("resumed and saw it", { all: true });
    const last = f.llm.chatRequests()[0]!.body.messages.at(-1)!;
    expect(last.content).toContain("$ echo kept-out-63\nkept-out-63");
    expect(last.content.endsWith("what did it print?")).toBe(true);
    await quit(r);
  });

  test("--line-mode: !command asks by line, prints its output, and the output is in the next prompt", async () => {
    await f.setup([{ text: "line mode saw it" }]);
    const p = f.chat(["chat", "--line-mode"], { bin: [binary()], env: { NO_COLOR: "1" } });
    await p.waitFor("line mode");
    p.send("!echo line-out-52");
    await p.waitFor("? allow bash");
    p.send("y");
    const all = await p.waitFor("its output goes to the model", { all: true });
    // The output on a line of its own (the typed line holds the word too).
    expect(all.split("\n").some((l) => l.trim() === "line-out-52")).toBe(true);
    p.send("and?");
    await p.waitFor("line mode saw it", { all: true });
    const last = f.llm.chatRequests()[0]!.body.messages.at(-1)!;
    expect(last.content).toContain("$ echo line-out-52\nline-out-52");
    await quit(p);
  });
});
