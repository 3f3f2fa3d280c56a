// The durable queue (core/host/queue.ts over core/sessions/queue-file.ts):
// every change on disk (0600, written whole) before the call returns, the
// limits with errors naming them, a queue left by a dead process back paused,
// a failed item kept for retry — and the /queue parser (core/protocol/queue.ts).
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PromptQueue, QueueError } from "../queue.ts";
import { newerQueueView, parseQueueCommand, queueText, QUEUE_LIMITS } from "../../protocol/queue.ts";
import { readQueueFile } from "../../sessions/queue-file.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    try {
      chmodSync(d, 0o700);
    } catch {}
    rmSync(d, { recursive: true, force: true });
  }
});
const fileIn = () => {
  const d = mkdtempSync(join(tmpdir(), "rx-queue-"));
  dirs.push(d);
  return join(d, "sess", "queue.json");
};
const onDisk = (f: string) => readQueueFile(f)!;
const texts = (f: string) => onDisk(f).items.map((i) => i.text);

test("each change is on disk, 0600, before the call returns; texts in files of their own; an emptied queue leaves nothing", () => {
  const f = fileIn();
  const q = new PromptQueue(f);
  q.add("first");
  expect(texts(f)).toEqual(["first"]);
  expect(statSync(f).mode & 0o777).toBe(0o600);
  q.add("second");
  q.add("third");
  q.move(3, 1);
  expect(texts(f)).toEqual(["third", "first", "second"]);
  q.edit(2, "first, edited");
  q.delete(3);
  expect(texts(f)).toEqual(["third", "first, edited"]);
  // The queue file names the texts (no text inside it); each text is a 0600 file; no temp file and no stale text is left.
  expect(readFileSync(f, "utf8")).not.toContain("third");
  const textDir = join(f, "..", "queue");
  expect(readdirSync(join(f, "..")).sort()).toEqual(["queue", "queue.json"]);
  const names = readdirSync(textDir);
  expect(names.sort()).toEqual(JSON.parse(readFileSync(f, "utf8")).items.map((i: any) => i.hash).sort());
  for (const n of names) expect(statSync(join(textDir, n)).mode & 0o777).toBe(0o600);
  const a = q.take()!;
  expect(onDisk(f).running!.text).toBe("third");
  q.finished(a, true);
  q.finished(q.take()!, true);
  expect(() => statSync(f)).toThrow();
  expect(readdirSync(textDir)).toEqual([]);
  expect(q.length).toBe(0);
});

test("a queue left by a process that died comes back paused, the running item first and marked; a clean close says restored", () => {
  const f = fileIn();
  const q = new PromptQueue(f);
  q.add("was running");
  q.add("waiting");
  q.take();
  // The process dies here: its file says running + waiting, not clean, and names a dead pid.
  const left = JSON.parse(readFileSync(f, "utf8"));
  writeFileSync(f, JSON.stringify({ ...left, pid: 2 ** 22 + 12345 }));
  const back = new PromptQueue(f);
  expect(back.paused).toBe(true);
  expect(back.view().pausedWhy).toBe("crash");
  expect(back.view().items.map((i) => [i.preview, !!i.interrupted])).toEqual([["was running", true], ["waiting", false]]);
  // Paused: nothing is taken until resumed.
  expect(back.take()).toBeUndefined();
  back.resume();
  expect(back.take()!.text).toBe("was running");
  back.close();
  const again = new PromptQueue(f);
  expect([again.paused, again.view().pausedWhy]).toEqual([true, "restored"]);
});

test("a failed item is kept for retry and pauses the queue; retry puts it first and resumes", () => {
  const q = new PromptQueue(fileIn());
  q.add("will fail");
  q.add("next");
  const a = q.take()!;
  q.finished(a, false);
  expect([q.paused, q.view().pausedWhy, q.view().failed?.preview]).toEqual([true, "failed", "will fail"]);
  expect(q.take()).toBeUndefined();
  q.retry();
  expect([q.paused, q.texts]).toEqual([false, ["will fail", "next"]]);
  expect(() => q.retry()).toThrow("no queued prompt has failed");
});

test("limits: 64 items, 4 MiB an item, 64 MiB a session — each error names its limit and changes nothing", () => {
  const f = fileIn();
  const q = new PromptQueue(f);
  const big = "x".repeat(QUEUE_LIMITS.itemBytes + 1);
  expect(() => q.add(big)).toThrow(/at most 4 MiB/);
  expect(q.length).toBe(0);
  for (let i = 0; i < QUEUE_LIMITS.items; i++) q.add(`p${i}`);
  let e: unknown;
  try {
    q.add("one more");
  } catch (x) {
    e = x;
  }
  expect(e).toBeInstanceOf(QueueError);
  expect((e as QueueError).code).toBe("queue_full");
  expect((e as Error).message).toContain("at most 64 prompts");
  expect(onDisk(f).items).toHaveLength(64);
  expect(readdirSync(join(f, "..", "queue"))).toHaveLength(64);
  q.clear();
  // 15 items of 4 MiB fit (60 MiB); the 16th would pass 64 MiB with what is queued.
  const four = "y".repeat(QUEUE_LIMITS.itemBytes);
  for (let i = 0; i < 15; i++) q.add(four);
  q.add("z".repeat(QUEUE_LIMITS.itemBytes - 64));
  expect(() => q.add(four)).toThrow(/at most 64 MiB in all/);
  expect(() => q.edit(1, `${four}!`)).toThrow(/at most 4 MiB/);
  expect(q.length).toBe(16);
  // Non-ASCII text counts in bytes (UTF-8).
  q.clear();
  expect(() => q.add("é".repeat(QUEUE_LIMITS.itemBytes / 2 + 1))).toThrow(/at most 4 MiB/);
}, 120_000); // 64 MiB through the disk: slow on a loaded machine, never a timing bet

test("a queued prompt's pictures: their bytes in files of their own (0600), back with the item in a new process's queue, counted in the total, swept with it", () => {
  const f = fileIn();
  const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
  const q = new PromptQueue(f);
  q.add("[image #1] look", [{ mediaType: "image/png", data: png.toString("base64"), name: "image #1" }]);
  q.add("plain");
  const dir = join(f, "..", "queue");
  const pictures = readdirSync(dir).filter((n) => readFileSync(join(dir, n)).equals(png));
  expect(pictures).toHaveLength(1);
  expect(statSync(join(dir, pictures[0]!)).mode & 0o777).toBe(0o600);
  expect(q.view().bytes).toBe(Buffer.byteLength("[image #1] lookplain") + png.length);
  // A dead process's queue: the picture comes back with its item.
  const again = new PromptQueue(f);
  expect(again.take()).toBeUndefined(); // paused
  again.resume();
  const item = again.take()!;
  expect(item).toMatchObject({ text: "[image #1] look", images: [{ mediaType: "image/png", data: png.toString("base64"), name: "image #1" }] });
  expect(readdirSync(dir)).toContain(pictures[0]!); // still named while it runs
  again.finished(item, true);
  again.clear();
  expect(readdirSync(dir).filter((n) => n === pictures[0])).toEqual([]);
});

test("an edit drops the pictures whose [image #N] token it removed (their files too) and keeps the others", () => {
  const f = fileIn();
  const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
  const gif = Buffer.from("474946383961010001008000", "hex");
  const pic = (b: Buffer, n: number) => ({ mediaType: n === 1 ? "image/png" : "image/gif", data: b.toString("base64"), name: `image #${n}` });
  const q = new PromptQueue(f);
  q.add("compare [image #1] with [image #2]", [pic(png, 1), pic(gif, 2)]);
  const dir = join(f, "..", "queue");
  const holds = (b: Buffer) => readdirSync(dir).some((n) => readFileSync(join(dir, n)).equals(b));
  expect([holds(png), holds(gif)]).toEqual([true, true]);
  expect(q.view().items[0]!.images).toEqual(["image #1", "image #2"]);
  // The edit keeps [image #2] only: picture 1 is gone from the item, the view, the total and the disk.
  q.edit(1, "just [image #2] then");
  expect(q.get(1).images!.map((i) => i.name)).toEqual(["image #2"]);
  expect(q.view().items[0]!.images).toEqual(["image #2"]);
  expect(q.view().bytes).toBe(Buffer.byteLength("just [image #2] then") + gif.length);
  expect([holds(png), holds(gif)]).toEqual([false, true]);
  expect(onDisk(f).items[0]!.images!.map((i) => i.name)).toEqual(["image #2"]);
  // A text without any token leaves no pictures (and no picture files).
  q.edit(1, "no pictures now");
  expect(q.get(1).images).toBeUndefined();
  expect(q.view().items[0]!.images).toBeUndefined();
  expect([holds(png), holds(gif)]).toEqual([false, false]);
  // A picture not named by a token (an API caller's own name) is kept whatever the text says.
  q.add("[image #1] and a file", [pic(png, 1), { ...pic(gif, 2), name: "diagram.gif" }]);
  q.edit(2, "text only");
  expect(q.get(2).images!.map((i) => i.name)).toEqual(["diagram.gif"]);
  expect([holds(png), holds(gif)]).toEqual([false, true]);
});

test("a save that fails changes nothing in memory and leaves the old file whole", () => {
  if (process.getuid?.() === 0) {
    // root writes into a read-only directory: make the target a directory instead, so the rename fails.
    const f = fileIn();
    const q = new PromptQueue(f);
    q.add("kept");
    rmSync(f);
    require("node:fs").mkdirSync(join(f, "block"), { recursive: true });
    expect(() => q.add("lost")).toThrow();
    expect(q.texts).toEqual(["kept"]);
    expect(readdirSync(join(f, "..")).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    return;
  }
  const f = fileIn();
  const q = new PromptQueue(f);
  q.add("kept");
  chmodSync(join(f, ".."), 0o500);
  expect(() => q.add("lost")).toThrow();
  expect(q.texts).toEqual(["kept"]);
  expect(readQueueFile(f)!.items.map((i) => i.text)).toEqual(["kept"]);
});

test("the /queue parser: subcommands, positions from 1, edit keeps the text's lines, errors name the usage", () => {
  expect(parseQueueCommand("")).toEqual({ action: "list" });
  expect(parseQueueCommand("list")).toEqual({ action: "list" });
  expect(parseQueueCommand("show 2")).toEqual({ action: "show", n: 2 });
  expect(parseQueueCommand("rm 1")).toEqual({ action: "delete", n: 1 });
  expect(parseQueueCommand("edit 3 new text\nsecond line")).toEqual({ action: "edit", n: 3, text: "new text\nsecond line" });
  expect(parseQueueCommand("move 4 1")).toEqual({ action: "move", n: 4, to: 1 });
  expect(parseQueueCommand("pause")).toEqual({ action: "pause" });
  expect(parseQueueCommand("retry")).toEqual({ action: "retry" });
  expect(parseQueueCommand("show 0")).toEqual({ error: "usage: /queue show N (N from /queue list)" });
  expect(parseQueueCommand("move 1")).toEqual({ error: "usage: /queue move N M (N to position M)" });
  expect(parseQueueCommand("edit 1")).toEqual({ error: "usage: /queue edit N TEXT" });
  expect((parseQueueCommand("lsit") as { error: string }).error).toContain('unknown /queue subcommand "lsit"');
  // The line chat's `/queue <message>` shorthand: only when the first word is no subcommand.
  expect(queueText("/queue then add a README")).toBe("then add a README");
  expect(queueText("/queue list")).toBeUndefined();
  expect(queueText("/queue")).toBeUndefined();
});

describe("views by two paths (an HTTP answer and a live notice)", () => {
  test("a later change's view wins over an earlier one that arrives after it; another queue's view always shows", () => {
    const q = new PromptQueue(undefined);
    const first = q.view();
    q.add("one");
    const later = q.view();
    expect(later.rev).toBeGreaterThan(first.rev);
    expect(newerQueueView(later, first)).toBe(false);
    expect(newerQueueView(first, later)).toBe(true);
    expect(newerQueueView(later, later)).toBe(true);
    expect(newerQueueView(later, new PromptQueue(undefined).view())).toBe(true);
    expect(newerQueueView(null, first)).toBe(true);
  });
});
