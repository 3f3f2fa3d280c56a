// A crash while the full-screen chat is up (tmux): the terminal is given back
// first — the live region left, bracketed paste and the keyboard modes turned
// off, raw mode ended — and only then the error and the one-line notice are
// printed, each on a line of its own below the chat (not over its status
// line). The crash comes from the test-only switch on the first prompt sent.
import { expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { chatFixture, hasTmux, ready } from "./chat-helpers.ts";

const tmuxOk = hasTmux();
if (!tmuxOk) console.log("SKIPPED crash-chat-tty: tmux is not installed");
const f = chatFixture();

test.skipIf(!tmuxOk)("a crash in the running chat restores the terminal, then says where the report is", async () => {
  await f.setup([{ text: "never reached" }]);
  const rec = join(f.ce.home, "pane.bytes");
  const p = f.chat(["chat"], { env: { REASONIX_TEST_CRASH: "chat-ui", REASONIX_TEST_CRASH_MESSAGE: "planted" }, cols: 240, record: rec });
  await ready(p);
  p.send("hello there");
  const all = await p.waitFor("[exit 1]", { all: true });
  const lines = all.split("\n").map((l) => l.trimEnd());
  // Each on a line of its own: nothing of the status line is left beside them.
  expect(lines).toContain("error: test crash in chat-ui: planted");
  const notice = lines.filter((l) => l.includes("reasonix report"));
  expect(notice).toHaveLength(1);
  const m = /^A crash report was saved to (\S+\.json) \(nothing is sent\); review or send it with: reasonix report$/.exec(notice[0]!);
  expect(m).not.toBeNull();
  expect(statSync(m![1]!).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(m![1]!, "utf8"))).toMatchObject({ frontEnd: "chat", errorClass: "TypeError" });
  // What the program wrote: the terminal is given back before the error is printed.
  // (pipe-pane copies it asynchronously: wait until the notice has reached the file.)
  const written = await pollFor("the notice in the recorded output", () => readFileSync(rec, "latin1"), (w) => w.includes("reasonix report"));
  const at = written.lastIndexOf("test crash in chat-ui");
  expect(at).toBeGreaterThan(0);
  const before = written.slice(written.lastIndexOf("\x1b[?2004h"), at);
  expect(before).toContain("\x1b[?2004l");
  // After the notice the shell's own line ([exit 1]) starts at column 0 too.
  expect(lines).toContain("[exit 1]");
});
