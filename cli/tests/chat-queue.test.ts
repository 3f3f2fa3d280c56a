// The durable queue in the terminal chat, in a real tmux pane: Tab queues
// what was typed during a turn, the status line counts it, /queue list shows
// it; kill -9 of the chat leaves it on disk, and `chat --resume` shows it
// paused above the composer until /queue resume sends it in order.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { chatFixture, hasTmux, quit, ready } from "./chat-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED terminal chat queue tests: tmux is not installed (apt-get install tmux)");

const f = chatFixture();
const lastUser = (i: number) => f.llm.chatRequests()[i]!.body.messages.filter((m: any) => m.role === "user").at(-1).content;

describe.skipIf(skip)("reasonix chat queue", () => {
  test("Tab queues, the status line counts, /queue list shows; after kill -9 the resumed chat shows it paused until /queue resume", async () => {
    const held = Promise.withResolvers<void>();
    await f.setup([{ text: "slow answer", until: held.promise }, { text: "answer to second" }, { text: "answer to third" }]);
    try {
      let p = f.chat();
      await ready(p);
      p.send("first prompt");
      await p.waitFor("Esc cancels");
      p.type("second prompt");
      p.keys("Tab");
      await p.waitFor("queued › second prompt");
      p.type("third prompt");
      p.keys("Tab");
      const s = await p.waitFor("queued › third prompt");
      expect(s).toContain("queue 2");
      p.send("/queue list");
      const listed = await p.waitFor("2. third prompt");
      expect(listed).toContain("1. second prompt");
      expect(listed).toContain("Queued (2/64");

      // kill -9: the session's lock names the chat's pid.
      const id = /session (\d{8}-\d{6}-[0-9a-f]{6})/.exec(p.all())![1]!;
      const pid = Number(readFileSync(join(f.ce.home, "sessions", `${id}.lock`), "utf8").trim());
      process.kill(pid, "SIGKILL");
      await p.waitFor("[exit 137]", { all: true });
      held.resolve();
      expect(f.llm.chatRequests()).toHaveLength(1);

      p = f.chat(["chat", "--resume", id]);
      await ready(p);
      const back = await p.waitFor("queue paused (2)");
      expect(back).toContain("queue 2 paused");
      expect(back).toContain("queued › second prompt");
      // Nothing was sent while paused.
      expect(f.llm.chatRequests()).toHaveLength(1);
      p.send("/queue resume");
      await p.waitFor("answer to third");
      expect([lastUser(1), lastUser(2)]).toEqual(["second prompt", "third prompt"]);
      await pollFor("the queue file gone", () => {
        try {
          readFileSync(join(f.ce.home, "sessions", id, "queue.json"));
          return false;
        } catch {
          return true;
        }
      }, (gone) => gone);
      await quit(p);
    } finally {
      held.resolve();
    }
  });
});
