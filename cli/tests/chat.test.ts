// `reasonix chat` in a real tmux pane against the scripted model: streaming
// markdown, inline approvals, cancel, exit, resize.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { answer, chatFixture, hasTmux, quit, ready } from "./chat-helpers.ts";
import { runCli } from "./run-helpers.ts";
import { steerMessage } from "../../core/engine/session.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED terminal chat tests: tmux is not installed (apt-get install tmux)");

const f = chatFixture();
const { setup, chat } = f;

const LONG_ITEM = Array.from({ length: 24 }, (_, i) => `word${i}`).join(" ");
const ANSWER = `# Release notes\n\nThis answer has **bold** text and a list:\n\n- first item\n- second item\n- ${LONG_ITEM}\n\n### Details\n\n\`\`\`ts\nconst answer = 42;\n\`\`\`\n\n| name | value |\n|------|-------|\n| a    | 1     |\n\nThat is all.`;

describe.skipIf(skip)("reasonix chat in tmux", () => {
  test("a streamed markdown answer renders (heading, list, code, table); the prompt reaches the model", async () => {
    await setup([{ text: ANSWER, chunkSize: 5 }]);
    const p = chat();
    await ready(p);
    p.send("write release notes");
    const s = await p.waitFor("That is all.");
    expect(s).toContain("› write release notes");
    expect(s).toContain("Release notes");
    expect(s).not.toContain("# Release notes"); // rendered, not raw
    expect(s).toContain("- first item");
    expect(s).toContain("const answer = 42;");
    expect(s).toMatch(/│ name\s*│ value\s*│/);
    expect(s).not.toContain("**bold**");
    // Headings of any level without their hashes, code without the fence lines.
    expect(s).toMatch(/^Details$/m);
    expect(s).not.toContain("###");
    expect(s).not.toContain("```");
    // The long item wraps (120 columns) and goes on under its own text.
    const item = s.split("\n").findIndex((l) => l.startsWith("- word0 "));
    expect(s.split("\n")[item + 1]).toMatch(/^  word\d+ /);
    // Colour: the heading is styled (capture with escapes).
    expect(p.raw()).toContain("\x1b[");
    expect(f.llm.chatRequests()[0]!.body.messages.at(-1)).toEqual({ role: "user", content: "write release notes" });
  });

  test("a long streamed answer lands in the scrollback once and in order (small, narrow terminal)", async () => {
    const parts: string[] = [];
    for (let i = 1; i <= 40; i++) parts.push(`## Part ${i}`, "", `Paragraph ${i} says something about item ${i} in words.`, "", "```", `code ${i}`, "```", "");
    await setup([{ text: parts.join("\n"), chunkSize: 3 }]);
    const p = chat(["chat"], { cols: 60, rows: 15 });
    await ready(p);
    p.send("long");
    await p.waitFor((s) => s.includes("Part 40") && s.includes("code 40") && !s.includes("Esc cancels"));
    const all = p.all();
    const seen = [...all.matchAll(/^Part (\d+)$/gm)].map((m) => Number(m[1]));
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect([...all.matchAll(/^Paragraph (\d+) says/gm)].map((m) => Number(m[1]))).toEqual(seen);
    expect([...all.matchAll(/^\s*code (\d+)$/gm)].map((m) => Number(m[1]))).toEqual(seen);
  });

  test("approve once writes the file; deny does not; 'a' allows the rest of the session", async () => {
    await setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "once.txt", content: "one\n" } }] },
      { text: "wrote once" },
      { toolCalls: [{ name: "write_file", arguments: { path: "denied.txt", content: "no\n" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "s1.txt", content: "s1\n" } }] },
      // The stored rule is Edit(s1.txt): a second write there needs no prompt.
      { toolCalls: [{ name: "write_file", arguments: { path: "s1.txt", content: "s1\ns2\n" } }] },
      { text: "both written" },
    ]);
    const p = chat();
    await ready(p);
    p.send("write once.txt");
    let s = await p.waitFor("Allow write_file");
    expect(s).toContain("+ one");
    expect(s).toContain("1. Yes, once");
    await answer(p, 1);
    await p.waitFor("wrote once");
    expect(readFileSync(join(f.ce.workspace, "once.txt"), "utf8")).toBe("one\n");

    p.send("write denied.txt");
    await p.waitFor("write denied.txt", { all: true });
    await p.waitFor("Allow write_file");
    await answer(p, 5);
    // A refusal ends the turn (the engine's rule); the model is not asked again.
    s = await p.waitFor("a permission was refused");
    expect(s).toContain("denied: write_file");
    expect(s).toContain("type why");
    expect(existsSync(join(f.ce.workspace, "denied.txt"))).toBe(false);

    p.send("write two files");
    await p.waitFor("Allow write_file");
    await answer(p, 2);
    s = await p.waitFor("both written");
    expect(s).toContain("allowed for this session");
    expect(readFileSync(join(f.ce.workspace, "s1.txt"), "utf8")).toBe("s1\ns2\n");
    // The second write needed no prompt: one "allowed for this session" line only.
    expect((p.all().match(/allowed for this session/g) ?? []).length).toBe(1);
  });

  test("a resize keeps the pending approval visible and does not wipe the scrollback", async () => {
    await setup([{ text: Array.from({ length: 60 }, (_, i) => `line ${i} of the earlier answer`).join("\n\n") }, { toolCalls: [{ name: "write_file", arguments: { path: "r.txt", content: "r\n" } }] }, { text: "done after resize" }]);
    const rec = join(f.ce.workspace, "..", "resize.bytes");
    const p = chat(["chat"], { record: rec });
    await ready(p);
    p.send("long answer");
    // The turn has ended (the status line no longer offers Esc): "now write" starts the next one instead of steering this one.
    await p.waitFor((s) => s.includes("line 59 of the earlier answer") && !s.includes("Esc cancels"));
    p.send("now write");
    await p.waitFor("Allow write_file");
    // The approval stays on screen through a resize: wait for its redraw at the new size (what the chat wrote since).
    const redrawn = (x: string) => x.includes("Allow write_file") && x.includes("1. Yes, once");
    p.resize(70, 20);
    await p.waitFor(redrawn, { written: true });
    expect(redrawn(p.screen())).toBe(true);
    p.resize(130, 30);
    await p.waitFor(redrawn, { written: true });
    expect(redrawn(p.screen())).toBe(true);
    // The earlier answer is still in the terminal's scrollback.
    expect(p.all()).toContain("line 3 of the earlier answer");
    // Nothing ever clears the screen or the scrollback (ESC[2J / ESC[3J).
    const bytes = readFileSync(rec, "utf8");
    expect(bytes).not.toContain("\x1b[3J");
    expect(bytes).not.toContain("\x1b[2J");
    await answer(p, 1);
    await p.waitFor("done after resize");
    expect(readFileSync(join(f.ce.workspace, "r.txt"), "utf8")).toBe("r\n");
  });

  test("Esc cancels the running turn; Ctrl-C twice exits 0", async () => {
    await setup([{ text: "this answer is slow", delayMs: 20_000 }, { text: "after cancel" }]);
    const p = chat();
    await ready(p);
    p.send("slow one");
    await p.waitFor("Esc cancels");
    // Cancel once the request is at the model (else the next prompt would meet the slow step).
    await pollFor("the prompt at the model", () => f.llm.chatRequests().length, (n) => n >= 1);
    p.keys("Escape");
    await p.waitFor("cancelled");
    await p.waitFor((s) => !s.includes("Esc cancels"));
    p.send("again");
    await p.waitFor("after cancel");
    // Ctrl-C first clears what is typed.
    p.type("half a thought");
    await p.waitFor("half a thought");
    p.keys("C-c");
    await p.waitFor((x) => !x.includes("half a thought") && x.includes("press Ctrl-C again"));
    // Past the double-press window: that press's hint goes away when the window closes.
    await p.waitForCurrent((x) => !x.includes("press Ctrl-C again"));
    // A press after the window closed does not exit: it opens a new window.
    p.keys("C-c");
    await p.waitFor("press Ctrl-C again");
    // Then a double press exits. Both at once (as quit() in chat-helpers.ts): a second press
    // sent after seeing the hint could land outside the 1.5 s window on a loaded machine.
    p.keys("C-c", "C-c");
    const s = await p.waitFor("[exit 0]", { all: true });
    expect(s).toContain("continue with: reasonix chat --resume");
  });

  test("plain `reasonix` on a terminal opens the chat; without a terminal it stays exit 2", async () => {
    await setup([{ text: "hello from plain reasonix" }]);
    const r = await runCli(f.ce, []);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing command");
    const p = chat([]);
    await ready(p);
    p.send("hi");
    await p.waitFor("hello from plain reasonix");
  });
});

describe("reasonix chat without a terminal", () => {
  test("reads prompts line by line from stdin (line mode) and ends at end of input", async () => {
    // The first answer tries to set the clipboard and clear the screen: line mode writes no escape at all.
    await setup([{ text: "piped answer one \x1b]52;c;ZXZpbA==\x07\x1b[2J" }, { text: "piped answer two" }]);
    const r = await runCli(f.ce, ["chat"], { stdin: "first line\nsecond line\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("line mode");
    expect(r.stdout).toContain("piped answer one");
    expect(r.stdout).toContain("piped answer two");
    expect(r.stdout.includes("\x1b")).toBe(false);
    expect(f.llm.chatRequests().map((q) => q.body.messages.filter((m: any) => m.role === "user").at(-1).content)).toEqual(["first line", "second line"]);
  });
});

describe("reasonix chat without a terminal: approvals", () => {
  test("an approval after the input ended is refused, never waited for", async () => {
    await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "never.txt", content: "x\n" } }] }]);
    const r = await runCli(f.ce, ["chat"], { stdin: "write never.txt\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("refused (input has ended");
    expect(existsSync(join(f.ce.workspace, "never.txt"))).toBe(false);
  });
});

/** Line mode is idle again after `text`: its "> " prompt is the last line on screen. */
const turnOver = (text: string) => (s: string) => {
  const at = s.lastIndexOf(text);
  return at >= 0 && /\n>\s*$/.test(s.slice(at));
};

describe.skipIf(skip)("reasonix chat line mode (--line-mode, TERM=dumb)", () => {
  // NO_COLOR alone keeps the full-screen chat (chat-no-color.test.ts); line mode is asked for here.
  test("--line-mode with NO_COLOR=1: the same chat with no escape sequence in anything it writes; approvals answered by line", async () => {
    await setup([{ text: ANSWER }, { toolCalls: [{ name: "write_file", arguments: { path: "nc.txt", content: "plain\n" } }] }, { text: "wrote nc" }]);
    const rec = join(f.ce.workspace, "..", "nocolor.bytes");
    const p = chat(["chat", "--line-mode"], { env: { NO_COLOR: "1" }, record: rec });
    await p.waitFor("line mode");
    p.send("notes please");
    // The turn's end, not its answer: a line typed while the turn still runs steers it
    // (it would never start the write below). The prompt comes back after the answer.
    await p.waitFor(turnOver("That is all."));
    p.send("write nc.txt");
    await p.waitFor("? allow write_file");
    p.send("y");
    await p.waitFor("wrote nc");
    expect(readFileSync(join(f.ce.workspace, "nc.txt"), "utf8")).toBe("plain\n");
    p.send("/mode auto");
    await p.waitFor("permission mode auto");
    // In line mode Ctrl-C is a signal, and two signals in a row can merge into one: one press at a time.
    await quit(p);
    const bytes = readFileSync(rec, "utf8");
    expect(bytes).toContain("That is all.");
    expect(bytes).toContain("continue with: reasonix chat --resume");
    expect(bytes.includes("\x1b")).toBe(false);
  });

  test("TERM=dumb works in line mode: prompt, answer, slash command", async () => {
    await setup([{ text: "dumb terminal answer" }]);
    const p = chat(["chat"], { env: { TERM: "dumb" } });
    await p.waitFor("line mode");
    p.send("hello");
    await p.waitFor("dumb terminal answer");
    p.send("/cost");
    await p.waitFor("tokens: 100 in");
    p.send("/exit");
    await p.waitFor("[exit 0]", { all: true });
  });
});

describe.skipIf(skip)("reasonix chat line mode: steering and the queue", () => {
  test("--line-mode: a line typed during a turn steers it (same turn, next request); /queue waits for the turn's end", async () => {
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    // The first answer waits until the steering line and the queued line are on screen.
    await setup([{ text: "first draft", until: held }, { text: "revised with tabs" }, { text: "queued answer" }]);
    const p = chat(["chat", "--line-mode"], { env: { NO_COLOR: "1" } });
    await p.waitFor("line mode");
    p.send("write the config");
    await p.waitFor("write the config");
    p.send("use tabs, not spaces");
    const s = await p.waitFor("» use tabs, not spaces");
    expect(s).toContain("(steering · sent to the running turn)");
    p.send("/queue then add a README");
    await p.waitFor("(queued: then add a README)");
    release();
    await p.waitFor("revised with tabs");
    await p.waitFor("queued answer");
    const reqs = f.llm.chatRequests();
    expect(reqs).toHaveLength(3);
    // Steering joined the running turn: the second request continues it.
    const second = reqs[1]!.body.messages;
    expect(second.at(-1)).toEqual({ role: "user", content: steerMessage("use tabs, not spaces") });
    expect(second.at(-2)).toMatchObject({ role: "assistant", content: "first draft" });
    expect(second.filter((m: any) => m.role === "user" && m.content === "write the config")).toHaveLength(1);
    // The queued line became the next turn's prompt.
    expect(reqs[2]!.body.messages.at(-1)).toMatchObject({ role: "user", content: "then add a README" });
    p.send("/exit");
    await p.waitFor("[exit 0]", { all: true });
  });
});

describe.skipIf(skip)("reasonix chat without a model", () => {
  test("first use starts the setup wizard; Ctrl-C cancels it, writes nothing and leaves the terminal usable (exit 2)", async () => {
    await setup([]);
    writeFileSync(join(f.ce.home, "config.toml"), "");
    const p = chat([]);
    await p.waitFor("No model provider is configured yet");
    await p.waitFor("choose 1-");
    p.keys("C-c");
    const s = await p.waitFor("[exit 2]", { all: true });
    expect(s).toContain("setup cancelled; nothing was written");
    expect(s).not.toContain("error:");
    expect(readFileSync(join(f.ce.home, "config.toml"), "utf8")).toBe("");
  });
});
