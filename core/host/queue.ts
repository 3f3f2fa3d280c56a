/**
 * The prompts typed while a turn runs, for after it: durable (every change is
 * on disk before the call returns, core/sessions/queue-file.ts) and
 * manageable (list, edit, delete, move, pause, resume, retry). A queue found
 * on disk when a session opens comes back paused: its process died (or left
 * it), and nothing should run unasked.
 */
import { ReasonixError } from "../errors.ts";
import { processAlive } from "../process/alive.ts";
import { QUEUE_LIMITS, queuedPictureToken, queuePreview, type QueueView } from "../protocol/queue.ts";
import { readQueueFile, removeQueueFile, writeQueueFile, type QueueFileData, type QueueItem } from "../sessions/queue-file.ts";
import type { ImageInput } from "../protocol/contract.ts";
import { randomHex } from "../random.ts";

export type { QueueItem };

const bytes = (t: string) => Buffer.byteLength(t, "utf8");
/** What a picture's bytes take on disk (base64 decoded). */
const pictureBytes = (images: ImageInput[] | undefined) => (images ?? []).reduce((n, i) => n + (i.data ? Buffer.byteLength(i.data, "base64") : 0), 0);
/** An item's size: its text and its pictures (both on disk, so both count toward the queue's total). */
const itemBytes = (i: QueueItem) => bytes(i.text) + pictureBytes(i.images);

/** A queue limit or a position that does not exist: the message names which. */
export class QueueError extends ReasonixError {
  constructor(code: "queue_full" | "queue_item_too_large" | "queue_too_large" | "queue_no_item" | "queue_empty", message: string) {
    super(code, message, { exitCode: 2 });
  }
}

const MIB = 1024 * 1024;

export class PromptQueue {
  private items: QueueItem[] = [];
  private running: QueueItem | undefined;
  /** The views' order (QueueView.epoch/rev). */
  private readonly epoch = crypto.randomUUID();
  private rev = 0;
  private failedItem: QueueItem | undefined;
  /** Text steered into a finishing turn (hold), on disk until the turn it starts has settled; `out`: started already. */
  private held: QueueItem[] = [];
  private readonly out = new Set<QueueItem>();
  private pausedWhy: string | undefined;
  private readonly listeners = new Set<() => void>();

  /** `file`: where it lives (absent: in memory only). What is there now comes back paused. */
  constructor(private file?: string) {
    if (file) this.adopt(file);
  }

  /** Take over what `file` holds (a died process's queue): queued again, paused. */
  private adopt(file: string): void {
    const d = readQueueFile(file);
    if (!d) return;
    // Held steered text comes back as an ordinary queued prompt, after the turn it followed.
    const back = [...(d.running ? [{ ...d.running, interrupted: true }] : []), ...(d.held ?? []), ...d.items];
    this.items.push(...back);
    this.failedItem ??= d.failed;
    if (back.length) this.pausedWhy ??= d.clean ? "restored" : d.pid && d.pid !== process.pid && processAlive(d.pid) ? "restored" : "crash";
  }

  /** The texts waiting, in order. */
  get texts(): string[] {
    return this.items.map((i) => i.text);
  }

  get length(): number {
    return this.items.length;
  }

  get paused(): boolean {
    return this.pausedWhy !== undefined;
  }

  onChange(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private data(clean = false): QueueFileData {
    return {
      v: 1,
      pid: process.pid,
      clean,
      paused: this.paused,
      ...(this.pausedWhy ? { pausedWhy: this.pausedWhy } : {}),
      items: this.items,
      ...(this.running ? { running: this.running } : {}),
      ...(this.failedItem ? { failed: this.failedItem } : {}),
      ...(this.held.length ? { held: this.held } : {}),
    };
  }

  /** On disk first, then listeners: a change the caller was told of is never lost to a crash. */
  private save(): void {
    if (this.file) writeQueueFile(this.file, this.data());
    this.rev++;
    for (const l of [...this.listeners]) l();
  }

  /** Apply `change` and save; when the save fails, undo it and throw. */
  private commit(change: () => void): void {
    const before = { items: [...this.items], running: this.running, failed: this.failedItem, pausedWhy: this.pausedWhy, held: [...this.held] };
    change();
    try {
      this.save();
    } catch (e) {
      Object.assign(this, { items: before.items, running: before.running, failedItem: before.failed, pausedWhy: before.pausedWhy, held: before.held });
      throw e;
    }
  }

  private totalBytes(extra = 0, without?: QueueItem): number {
    const all = [...this.items, this.running, this.failedItem].filter((i): i is QueueItem => !!i && i !== without);
    return all.reduce((n, i) => n + itemBytes(i), extra);
  }

  /**
   * The text's own limit; the pictures (already within the limits of a
   * message's pictures, checked again when it is sent) count toward the total.
   */
  private checkText(text: string, without?: QueueItem, images = without?.images): void {
    const b = bytes(text);
    if (b > QUEUE_LIMITS.itemBytes) throw new QueueError("queue_item_too_large", `a queued prompt may hold at most ${QUEUE_LIMITS.itemBytes / MIB} MiB (this one is ${(b / MIB).toFixed(1)} MiB)`);
    if (this.totalBytes(b + pictureBytes(images), without) > QUEUE_LIMITS.totalBytes) throw new QueueError("queue_too_large", `a session's queue may hold at most ${QUEUE_LIMITS.totalBytes / MIB} MiB in all: delete or run some first`);
  }

  /** Queue `text` (with its pictures) at the end, on disk before this returns. Throws QueueError at a limit. */
  add(text: string, images?: ImageInput[]): QueueItem {
    if (this.items.length >= QUEUE_LIMITS.items) throw new QueueError("queue_full", `the queue holds at most ${QUEUE_LIMITS.items} prompts: delete or run some first (/queue list)`);
    this.checkText(text, undefined, images);
    const item: QueueItem = { id: randomHex(4), text, addedAt: new Date().toISOString(), ...(images?.length ? { images } : {}) };
    this.commit(() => this.items.push(item));
    return item;
  }

  private at(n: number): QueueItem {
    const item = this.items[n - 1];
    if (!item) throw new QueueError("queue_no_item", this.items.length ? `no queued prompt ${n}: the queue holds ${this.items.length} (1–${this.items.length})` : "the queue is empty");
    return item;
  }

  /** Item `n` (1-based). */
  get(n: number): QueueItem {
    return this.at(n);
  }

  /**
   * New text for item `n`. A picture whose token (`[image #N]`) the new text
   * no longer holds goes with the token (its file too, once nothing names it);
   * the others stay.
   */
  edit(n: number, text: string): QueueItem {
    const old = this.at(n);
    const images = old.images?.filter((img) => {
      const token = queuedPictureToken(img.name);
      return token === undefined || text.includes(token);
    });
    this.checkText(text, old, images);
    const next: QueueItem = { ...old, text, interrupted: undefined, images };
    delete next.interrupted;
    if (!images?.length) delete next.images;
    this.commit(() => (this.items[n - 1] = next));
    return next;
  }

  delete(n: number): QueueItem {
    const item = this.at(n);
    this.commit(() => this.items.splice(n - 1, 1));
    return item;
  }

  /** Item `n` to position `to` (clamped to the end). */
  move(n: number, to: number): QueueItem {
    const item = this.at(n);
    this.commit(() => {
      this.items.splice(n - 1, 1);
      this.items.splice(Math.min(to, this.items.length + 1) - 1, 0, item);
    });
    return item;
  }

  clear(): number {
    const n = this.items.length;
    this.commit(() => (this.items = []));
    return n;
  }

  pause(why = "user"): void {
    this.commit(() => (this.pausedWhy = why));
  }

  resume(): void {
    this.commit(() => (this.pausedWhy = undefined));
  }

  /** The last failed item back at the head of the queue, and the queue resumed. */
  retry(): QueueItem {
    const item = this.failedItem;
    if (!item) throw new QueueError("queue_empty", "no queued prompt has failed (nothing to retry)");
    if (this.items.length >= QUEUE_LIMITS.items) throw new QueueError("queue_full", `the queue holds at most ${QUEUE_LIMITS.items} prompts: delete one first`);
    this.commit(() => {
      this.items.unshift(item);
      this.failedItem = undefined;
      this.pausedWhy = undefined;
    });
    return item;
  }

  /** The next item to run (none while paused), marked running until finished(). */
  take(): QueueItem | undefined {
    if (this.paused || !this.items.length) return undefined;
    const item = this.items[0]!;
    this.commit(() => {
      this.items.shift();
      this.running = item;
    });
    return item;
  }

  /** The running item's turn ended: gone when it went well; kept for retry (and the queue paused) when it failed. */
  finished(item: QueueItem, ok: boolean): void {
    if (this.running?.id !== item.id) return;
    this.commit(() => {
      this.running = undefined;
      if (!ok) {
        this.failedItem = item;
        this.pausedWhy = "failed";
      }
    });
  }

  /**
   * Keep `texts` (steered into a finishing turn) on disk, apart from the
   * queue and whether it is paused, until the turn they start has settled:
   * `first` puts them ahead of what is held already. After a crash they come
   * back as queued prompts (adopt).
   */
  hold(texts: string[], o: { first?: boolean } = {}): void {
    if (!texts.length) return;
    const addedAt = new Date().toISOString();
    const items = texts.map((text) => ({ id: randomHex(4), text, addedAt }));
    this.commit(() => (this.held = o.first ? [...items, ...this.held] : [...this.held, ...items]));
  }

  /** Held text not started yet. */
  get holding(): boolean {
    return this.held.some((i) => !this.out.has(i));
  }

  /** What is held and not started, as one prompt (in order); `settled` lets it go from disk once its turn has settled. */
  startHeld(): { text: string; settled(): void } | undefined {
    const go = this.held.filter((i) => !this.out.has(i));
    if (!go.length) return undefined;
    for (const i of go) this.out.add(i);
    const settled = () => {
      for (const i of go) this.out.delete(i);
      this.commit(() => (this.held = this.held.filter((i) => !go.includes(i))));
    };
    return { text: go.map((i) => i.text).join("\n\n"), settled };
  }

  /** Move to another session's file (a new or resumed conversation): what that one held comes first, paused. */
  relocate(file: string | undefined): void {
    if (file === this.file) return;
    const old = this.file;
    this.file = file;
    const mine = this.items;
    this.items = [];
    if (file) this.adopt(file);
    this.items.push(...mine);
    this.save();
    if (old) removeQueueFile(old);
  }

  /** A clean end of the process: marked so, it comes back paused as "restored" rather than "crash". */
  close(): void {
    if (this.file && (this.items.length || this.running || this.failedItem || this.held.length)) writeQueueFile(this.file, this.data(true));
  }

  view(): QueueView {
    return {
      paused: this.paused,
      ...(this.pausedWhy ? { pausedWhy: this.pausedWhy } : {}),
      items: this.items.map((i, k) => ({
        n: k + 1,
        id: i.id,
        preview: queuePreview(i.text),
        bytes: itemBytes(i),
        addedAt: i.addedAt,
        ...(i.interrupted ? { interrupted: true } : {}),
        ...(i.images?.length ? { images: i.images.map((img, j) => img.name ?? `picture ${j + 1}`) } : {}),
      })),
      ...(this.running ? { running: { id: this.running.id, preview: queuePreview(this.running.text) } } : {}),
      ...(this.failedItem ? { failed: { id: this.failedItem.id, preview: queuePreview(this.failedItem.text) } } : {}),
      bytes: this.totalBytes(),
      limits: QUEUE_LIMITS,
      epoch: this.epoch,
      rev: this.rev,
    };
  }
}
