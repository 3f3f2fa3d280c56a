// The tmux pane's waits (chat-helpers.ts) wait for what the keys caused: text
// already on screen before them never ends the wait. A small shell program
// stands in for the chat: it prints "ready", and after each line typed,
// prints it again a moment later.
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { hasTmux, startChat, type Pane } from "./chat-helpers.ts";
import type { CliEnv } from "./run-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED tmux pane waits: tmux is not installed");

const ce = { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, workspace: "/tmp" } as unknown as CliEnv;
const script = 'echo ready; while read line; do sleep 0.5; echo "got $line"; echo ready; done';
let pane: Pane | undefined;
const rec = `/tmp/rx-pane-waits-${process.pid}.bytes`;
afterEach(() => {
  pane?.kill();
  rmSync(rec, { force: true });
});

describe.skipIf(skip)("tmux pane waits", () => {
  test("after keys, a wait for text already on screen lasts until the keys' answer shows it again", async () => {
    const p = (pane = startChat(ce, ["-c", script], { bin: ["sh"] }));
    await p.waitFor("ready");
    p.send("one");
    const s = await p.waitFor("ready");
    // Not the first "ready": the one printed after "got one".
    expect(s).toContain("got one");
    expect(s.match(/ready/g)).toHaveLength(2);
  });

  test("a condition that already holds before the keys is refused at once", async () => {
    const p = (pane = startChat(ce, ["-c", script], { bin: ["sh"] }));
    await p.waitFor("ready");
    p.send("two");
    const started = Date.now();
    await expect(p.waitFor((x) => x.includes("ready"))).rejects.toThrow(/already satisfied before the action/);
    expect(Date.now() - started).toBeLessThan(5000);
    // A condition about the keys' effect is fine.
    expect(await p.waitFor((x) => x.includes("got two"))).toContain("got two");
  });

  test("written: what the program wrote after the keys, even where the screen looks the same", async () => {
    const p = (pane = startChat(ce, ["-c", script], { bin: ["sh"], record: rec }));
    await p.waitFor("ready");
    p.send("three");
    expect(await p.waitFor("ready", { written: true })).toContain("got three");
  });
});
