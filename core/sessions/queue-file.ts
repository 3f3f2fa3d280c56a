/**
 * A session's queue of follow-up prompts on disk: `<sessions>/<id>/queue.json`
 * beside its blobs (so deleting the session deletes it), written whole and
 * atomically with mode 0600 on every change. `clean` is set only by a clean
 * close: a file without it was left by a process that died.
 */
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { writeFileAtomic } from "../fs/atomic.ts";

export interface QueueItem {
  /** Stable while the item is queued (edits keep it). */
  id: string;
  text: string;
  /** ISO time it was queued. */
  addedAt: string;
  /** It was running when the process died: it may have been partly done. */
  interrupted?: boolean;
}

export interface QueueFileData {
  v: 1;
  /** The process that wrote it. */
  pid: number;
  /** Set by a clean close. */
  clean: boolean;
  paused: boolean;
  /** Why it is paused: "user", "crash", "failed", "restored". */
  pausedWhy?: string;
  items: QueueItem[];
  /** The item whose turn runs now. */
  running?: QueueItem;
  /** The last item whose turn failed (`/queue retry`). */
  failed?: QueueItem;
}

const isItem = (x: unknown): x is QueueItem => !!x && typeof (x as QueueItem).id === "string" && typeof (x as QueueItem).text === "string";

/** The queue file at `path`, or undefined when there is none (or it cannot be read as one). */
export function readQueueFile(path: string): QueueFileData | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const d = JSON.parse(readFileSync(path, "utf8")) as Partial<QueueFileData>;
    if (!Array.isArray(d.items)) return undefined;
    return {
      v: 1,
      pid: typeof d.pid === "number" ? d.pid : 0,
      clean: d.clean === true,
      paused: d.paused === true,
      ...(typeof d.pausedWhy === "string" ? { pausedWhy: d.pausedWhy } : {}),
      items: d.items.filter(isItem),
      ...(isItem(d.running) ? { running: d.running } : {}),
      ...(isItem(d.failed) ? { failed: d.failed } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Write the queue whole (temp file, fsync, rename), 0600; an empty queue removes the file. */
export function writeQueueFile(path: string, data: QueueFileData): void {
  if (!data.items.length && !data.running && !data.failed) return removeQueueFile(path);
  writeFileAtomic(path, `${JSON.stringify(data)}\n`, { mode: 0o600, dirMode: 0o700 });
}

export function removeQueueFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}
