// Pictures from the clipboard in the compiled chat (tmux): Ctrl+V and
// /paste-image put an `[image #N]` token in the composer (read through a fake
// `xclip` on PATH that prints a PNG, as the real one does for
// `-t image/png -o`); sending the message sends the pictures whose tokens are
// still in it as image parts, and a deleted token sends nothing. Without a
// display (as over SSH) the chat says why no clipboard can be read.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { readClipboardImage } from "../chat/clipboard.ts";
import { chatFixture, compiledChat, quit, ready } from "./chat-helpers.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const { skip, binary } = compiledChat("chat paste-image tests");
const f = chatFixture();

/** A directory with an `xclip` that offers a PNG and logs how it was called. */
function fakeXclip(root: string): { dir: string; log: string } {
  const dir = join(root, "fakebin");
  mkdirSync(dir, { recursive: true });
  const pic = join(root, "clip.png");
  const log = join(root, "xclip.log");
  writeFileSync(pic, Buffer.from(PNG, "base64"));
  writeFileSync(
    join(dir, "xclip"),
    `#!/bin/sh\necho "$*" >> '${log}'\ncase "$*" in\n  *TARGETS*) printf 'TARGETS\\nimage/png\\n' ;;\n  *"-t image/png -o"*) cat '${pic}' ;;\n  *) exit 1 ;;\nesac\n`,
  );
  chmodSync(join(dir, "xclip"), 0o755);
  return { dir, log };
}

const userParts = (req: { body: any }) => req.body.messages.filter((m: any) => m.role === "user").at(-1)!.content;

describe.skipIf(skip)("compiled binary: pasting a picture", () => {
  test("Ctrl+V inserts [image #N], a deleted token sends nothing, the kept one reaches the model as an image part; /paste-image too; a resume shows the token and still sends the picture", async () => {
    await f.setup([{ text: "a red dot" }, { text: "the same dot" }, { text: "still the dot" }], "vision = true\n");
    const xclip = fakeXclip(join(f.ce.workspace, ".."));
    delete f.ce.env.WAYLAND_DISPLAY;
    const p = f.chat([], { bin: [binary()], env: { DISPLAY: ":77", PATH: `${xclip.dir}:${process.env.PATH}` } });
    await ready(p);
    p.type("what is ");
    p.keys("C-v");
    await p.waitFor("what is [image #1]");
    p.type(" and ");
    p.keys("C-v");
    await p.waitFor("what is [image #1] and [image #2]");
    // Delete the second token: its picture is not sent.
    p.keys(...Array.from({ length: "[image #2]".length }, () => "BSpace"));
    await p.waitFor((s) => s.includes("what is [image #1] and") && !s.includes("[image #2]"));
    p.keys("Enter");
    await p.waitFor("a red dot", { all: true });
    const first = userParts(f.llm.chatRequests()[0]!);
    expect(first).toEqual([
      { type: "text", text: "what is [image #1] and" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
    expect(readFileSync(xclip.log, "utf8")).toContain("-selection clipboard -t image/png -o");

    p.send("/paste-image");
    await p.waitFor("[image #3]");
    p.type(" again?");
    p.keys("Enter");
    await p.waitFor("the same dot", { all: true });
    const second = await pollFor("the second request", () => f.llm.chatRequests()[1], (r) => r !== undefined);
    expect(userParts(second!)).toEqual([
      { type: "text", text: "[image #3] again?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
    await quit(p);

    // Resumed: the replay shows the tokens; the conversation sent is the same, pictures included (the cached prefix holds).
    const id = /reasonix chat --resume (\S+)/.exec(p.all())![1]!;
    const r = f.chat(["chat", "--resume", id], { bin: [binary()], env: { DISPLAY: ":77", PATH: `${xclip.dir}:${process.env.PATH}` } });
    await r.waitFor("what is [image #1] and", { all: true });
    await ready(r);
    r.send("and now?");
    await r.waitFor("still the dot", { all: true });
    const third = await pollFor("the third request", () => f.llm.chatRequests()[2], (x) => x !== undefined);
    const before = JSON.stringify(second!.body.messages);
    expect(JSON.stringify(third!.body.messages).slice(0, before.length - 1)).toBe(before.slice(0, -1));
    await quit(r);
  });

  /** The chat (fake clipboard) runs a turn held until `held`; "[image #1] look" is typed during it: queued. */
  async function queuePictureDuringTurn(held: Promise<void>, next: string) {
    await f.setup([{ text: "first answer", until: held }, { text: next }], "vision = true\n");
    const xclip = fakeXclip(join(f.ce.workspace, ".."));
    delete f.ce.env.WAYLAND_DISPLAY;
    const env = { DISPLAY: ":77", PATH: `${xclip.dir}:${process.env.PATH}` };
    const p = f.chat([], { bin: [binary()], env });
    await ready(p);
    p.send("start");
    await p.waitFor("Esc cancels");
    p.keys("C-v");
    await p.waitFor("[image #1]");
    p.send(" look");
    // Queued (shown until the held turn ends), not sent as guidance (a brief hint says why: not asserted, it fades).
    const queued = await p.waitFor("queued › [image #1] look");
    return { p, env, queued };
  }

  /** The second request is the queued message, its picture as an image part. */
  function expectQueuedPictureSent() {
    const reqs = f.llm.chatRequests();
    expect(reqs).toHaveLength(2);
    expect(userParts(reqs[1]!)).toEqual([
      { type: "text", text: "[image #1] look" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
  }

  test("a message with a picture typed during a turn waits for it (no steer), then goes with its picture", async () => {
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    const { p, queued } = await queuePictureDuringTurn(held, "saw the queued dot");
    expect(queued).not.toContain("» [image #1]");
    release();
    await p.waitFor("saw the queued dot", { all: true });
    expectQueuedPictureSent();
    await quit(p);
  });

  test("/queue edit that takes out [image #1] drops the queued picture (its file too): the queued message goes without it", async () => {
    const held = Promise.withResolvers<void>();
    try {
      const { p } = await queuePictureDuringTurn(held.promise, "saw no dot");
      const id = /session (\d{8}-\d{6}-[0-9a-f]{6})/.exec(p.all())![1]!;
      const dir = join(f.ce.home, "sessions", id, "queue");
      const pictures = () => readdirSync(dir).filter((n) => readFileSync(join(dir, n)).equals(Buffer.from(PNG, "base64")));
      expect(pictures()).toHaveLength(1);
      p.send("/queue edit 1 look, no picture now");
      await p.waitFor("edited 1: look, no picture now");
      expect(pictures()).toEqual([]);
      held.resolve();
      await p.waitFor("saw no dot", { all: true });
      const reqs = f.llm.chatRequests();
      expect(reqs).toHaveLength(2);
      expect(userParts(reqs[1]!)).toBe("look, no picture now");
      await quit(p);
    } finally {
      held.resolve();
    }
  });

  test("a queued message's picture survives kill -9: stored beside the queued text (0600), the resumed chat sends it after /queue resume", async () => {
    const held = Promise.withResolvers<void>();
    try {
      const q = await queuePictureDuringTurn(held.promise, "saw the dot after the crash");
      let p = q.p;
      const env = q.env;
      // On disk when it showed as queued: the text and the picture's bytes, each 0600.
      const id = /session (\d{8}-\d{6}-[0-9a-f]{6})/.exec(p.all())![1]!;
      const dir = join(f.ce.home, "sessions", id, "queue");
      const pictures = readdirSync(dir).filter((n) => readFileSync(join(dir, n)).equals(Buffer.from(PNG, "base64")));
      expect(pictures).toHaveLength(1);
      expect(statSync(join(dir, pictures[0]!)).mode & 0o777).toBe(0o600);

      const pid = Number(readFileSync(join(f.ce.home, "sessions", `${id}.lock`), "utf8").trim());
      process.kill(pid, "SIGKILL");
      await p.waitFor("[exit 137]", { all: true });
      held.resolve();
      expect(f.llm.chatRequests()).toHaveLength(1);

      p = f.chat(["chat", "--resume", id], { bin: [binary()], env });
      await ready(p);
      await p.waitFor("queue paused (1)");
      p.send("/queue resume");
      await p.waitFor("saw the dot after the crash", { all: true });
      expectQueuedPictureSent();
      await quit(p);
    } finally {
      held.resolve();
    }
  });

  test("no display (over SSH): Ctrl+V says why no clipboard can be read and what to do; nothing is inserted", async () => {
    await f.setup([]);
    // No display, whatever the machine running the tests has.
    delete f.ce.env.DISPLAY;
    delete f.ce.env.WAYLAND_DISPLAY;
    const p = f.chat([], { bin: [binary()], env: { SSH_CONNECTION: "10.0.0.1 5000 10.0.0.2 22" } });
    await ready(p);
    p.keys("C-v");
    const all = (await p.waitFor("cannot read a clipboard", { all: true })).replace(/\n/g, " ");
    expect(all).toContain("this chat runs over SSH, where no display is set");
    expect(all).toContain("write @name.png in the message");
    expect(all).not.toContain("[image #");
    await quit(p);
  });
});

test("a display but no clipboard tool: the message names the tool to install", async () => {
  const r = await readClipboardImage({ DISPLAY: ":1", PATH: "/nonexistent" }, "linux");
  expect(r).toEqual({ ok: false, message: expect.stringContaining("xclip is not installed") });
  const w = await readClipboardImage({ WAYLAND_DISPLAY: "wayland-0", PATH: "/nonexistent" }, "linux");
  expect(w.ok ? "" : w.message).toContain("wl-paste (package wl-clipboard) is not installed");
});
