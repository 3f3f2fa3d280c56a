/**
 * A session's queue of follow-up prompts on disk, beside its blobs (so
 * deleting the session deletes it): `<sessions>/<id>/queue.json` holds the
 * order and state, each prompt's text is its own file under `queue/` named by
 * its hash, and so is each picture queued with it (its bytes). Every file is
 * written whole and atomically (temp file, fsync, rename), mode 0600: a text
 * or picture before the queue file that names it, so a change
 * costs the size of what changed, never the whole queue again. `clean` is set
 * only by a clean close: a file without it was left by a process that died.
 */
import { sha256 } from "../trust/inputs.ts";
import { existsSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { ImageInput } from "../protocol/contract.ts";
export interface QueueItem {
  /** Stable while the item is queued (edits keep it). */
  id: string;
  text: string;
  /** The pictures sent with it (the chat's pasted `[image #N]`s). */
  images?: ImageInput[];
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
  /** Text steered into a finishing turn, held until the next turn it starts has settled (core/host/session-host.ts). */
  held?: QueueItem[];
}

/** A picture as the queue file names it: its bytes are in `queue/<hash>` (a URL one is kept as it is). */
type StoredImage = Omit<ImageInput, "data"> & { hash?: string };

/** An item as the queue file stores it: the text is in `queue/<hash>`, each picture's bytes too. */
interface StoredItem extends Omit<QueueItem, "text" | "images"> {
  hash: string;
  images?: StoredImage[];
}

const WRITE = { mode: 0o600, dirMode: 0o700 } as const;
const textDir = (path: string) => join(dirname(path), "queue");
/** Each item's text hash, computed once (an edit makes a new item). */
const hashes = new WeakMap<QueueItem, string>();
function hashOf(i: QueueItem): string {
  let h = hashes.get(i);
  if (!h) hashes.set(i, (h = sha256(i.text).slice(0, 32)));
  return h;
}

/** A text's or picture's file under `queue/`, named by its hash: written once, before anything names it. */
function putBlob(path: string, hash: string, data: () => string | Uint8Array): void {
  const p = join(textDir(path), hash);
  if (!existsSync(p)) writeFileAtomic(p, data(), WRITE);
}

const imageHashes = new WeakMap<ImageInput, string>();
function storedImage(path: string, img: ImageInput): StoredImage {
  const { data, ...rest } = img;
  if (!data) return rest;
  let hash = imageHashes.get(img);
  if (!hash) imageHashes.set(img, (hash = sha256(data).slice(0, 32)));
  putBlob(path, hash, () => Buffer.from(data, "base64"));
  return { ...rest, hash };
}

function stored(path: string, i: QueueItem): StoredItem {
  const hash = hashOf(i);
  putBlob(path, hash, () => i.text);
  const { text: _text, images, ...rest } = i;
  return { ...rest, hash, ...(images?.length ? { images: images.map((img) => storedImage(path, img)) } : {}) };
}

const HASH = /^[0-9a-f]{32}$/;

function loaded(path: string, x: unknown): QueueItem | undefined {
  const s = x as StoredItem;
  if (!s || typeof s.id !== "string" || typeof s.hash !== "string" || !HASH.test(s.hash)) return undefined;
  try {
    const { hash: _hash, images, ...rest } = s;
    const pictures = Array.isArray(images)
      ? images.map(({ hash, ...img }): ImageInput => {
          if (hash === undefined) return img;
          if (typeof hash !== "string" || !HASH.test(hash)) throw new Error("bad picture name");
          return { ...img, data: readFileSync(join(textDir(path), hash)).toString("base64") };
        })
      : [];
    return { ...rest, text: readFileSync(join(textDir(path), s.hash), "utf8"), ...(pictures.length ? { images: pictures } : {}) };
  } catch {
    return undefined; // its text (or a picture) is gone: the item cannot be sent as it was queued
  }
}

/** The queue file at `path`, or undefined when there is none (or it cannot be read as one). */
export function readQueueFile(path: string): QueueFileData | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const d = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    if (!Array.isArray(d.items)) return undefined;
    const running = loaded(path, d.running);
    const failed = loaded(path, d.failed);
    const held = Array.isArray(d.held) ? d.held.map((x) => loaded(path, x)).filter((i): i is QueueItem => !!i) : [];
    return {
      v: 1,
      pid: typeof d.pid === "number" ? d.pid : 0,
      clean: d.clean === true,
      paused: d.paused === true,
      ...(typeof d.pausedWhy === "string" ? { pausedWhy: d.pausedWhy } : {}),
      items: d.items.map((x) => loaded(path, x)).filter((i): i is QueueItem => !!i),
      ...(running ? { running } : {}),
      ...(failed ? { failed } : {}),
      ...(held.length ? { held } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Write the queue (new texts first, then the queue file naming them), 0600; texts no longer named are removed. An empty queue removes it all. */
export function writeQueueFile(path: string, data: QueueFileData): void {
  if (!data.items.length && !data.running && !data.failed && !data.held?.length) return removeQueueFile(path);
  const keep = (i: QueueItem | undefined) => (i ? stored(path, i) : undefined);
  const held = data.held?.map((i) => stored(path, i)) ?? [];
  const out = { ...data, items: data.items.map((i) => stored(path, i)), running: keep(data.running), failed: keep(data.failed), ...(held.length ? { held } : {}) };
  writeFileAtomic(path, `${JSON.stringify(out)}\n`, WRITE);
  const named = new Set([...out.items, out.running, out.failed, ...held].filter((i): i is StoredItem => !!i).flatMap((i) => [i.hash, ...(i.images ?? []).flatMap((img) => (img.hash ? [img.hash] : []))]));
  sweep(path, named);
}

/** Remove the texts not in `named` (and temp files a crash left). */
function sweep(path: string, named: Set<string>): void {
  let names: string[];
  try {
    names = readdirSync(textDir(path));
  } catch {
    return;
  }
  for (const n of names) if (!named.has(n)) try { unlinkSync(join(textDir(path), n)); } catch {}
}

export function removeQueueFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
  sweep(path, new Set());
}
