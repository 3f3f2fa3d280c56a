/**
 * The queue of follow-up prompts as every front end sees it: its limits, the
 * view the API and `/queue list` answer with, and the parser of `/queue …`.
 * Browser-safe.
 */

export const QUEUE_LIMITS = {
  /** Bytes (UTF-8) of one queued prompt. */
  itemBytes: 4 * 1024 * 1024,
  /** Prompts waiting at once. */
  items: 64,
  /** Bytes of everything a session's queue holds. */
  totalBytes: 64 * 1024 * 1024,
} as const;

/** Characters of a prompt shown in a list. */
export const QUEUE_PREVIEW_CHARS = 80;

export interface QueueItemView {
  /** 1-based position, as the commands take it. */
  n: number;
  id: string;
  /** One line, at most QUEUE_PREVIEW_CHARS characters. */
  preview: string;
  bytes: number;
  addedAt: string;
  /** It was running when the process died. */
  interrupted?: boolean;
  /** The names of the pictures queued with it (`image #N`), in order: GET …/queue/:n/images/:k serves each. */
  images?: string[];
}

export interface QueueView {
  paused: boolean;
  /** "user", "crash", "failed" or "restored". */
  pausedWhy?: string;
  items: QueueItemView[];
  /** The queued prompt whose turn runs now. */
  running?: { id: string; preview: string };
  /** The last queued prompt whose turn failed (`/queue retry` runs it again). */
  failed?: { id: string; preview: string };
  bytes: number;
  limits: typeof QUEUE_LIMITS;
  /**
   * Which view is newer: `rev` grows with every change of one queue object
   * (`epoch` names it; a restarted server has another). A client that gets
   * views by two paths (an HTTP answer, a live notice) keeps the newest.
   */
  epoch: string;
  rev: number;
}

/** True when `next` should replace `shown` (another queue, or a later change of the same one). */
export function newerQueueView(shown: QueueView | null | undefined, next: QueueView): boolean {
  return !shown || shown.epoch !== next.epoch || next.rev >= shown.rev;
}

/**
 * The token that places a queued picture in its text: a picture named
 * `image #N` (the chat's paste, the web UI's attachment) is `[image #N]`. A
 * picture named otherwise has no token and is never dropped by an edit.
 */
export function queuedPictureToken(name: string | undefined): string | undefined {
  return name && /^image #\d+$/.test(name) ? `[${name}]` : undefined;
}

/** One line of `text`, at most `n` characters. */
export function queuePreview(text: string, n = QUEUE_PREVIEW_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
}

export type QueueAction =
  | { action: "list" | "pause" | "resume" | "retry" | "clear" }
  | { action: "show" | "delete"; n: number }
  | { action: "edit"; n: number; text: string }
  | { action: "move"; n: number; to: number }
  | { action: "add"; text: string };

export const QUEUE_USAGE = "/queue [list | show N | edit N TEXT | delete N | move N M | pause | resume | retry | clear | add TEXT]";

const QUEUE_WORDS = new Set(["list", "show", "edit", "delete", "rm", "move", "pause", "resume", "retry", "clear", "add"]);

/**
 * The line chat's shorthand `/queue <message>`: the message when the first
 * word is not a subcommand (`/queue add <message>` says the same); undefined
 * for anything else.
 */
export function queueText(text: string): string | undefined {
  const m = /^\/(?:reasonix:)?queue\s+(\S+)([\s\S]*)$/.exec(text.trim());
  if (!m || QUEUE_WORDS.has(m[1]!.toLowerCase())) return undefined;
  return `${m[1]}${m[2]}`.trim();
}

const num = (s: string | undefined) => (s && /^[1-9]\d{0,5}$/.test(s) ? Number(s) : undefined);

/** `/queue`'s argument as an action, or an error line naming the usage. */
export function parseQueueCommand(arg: string): QueueAction | { error: string } {
  const t = arg.trim();
  const m = /^(\S+)(?:\s+([\s\S]*))?$/.exec(t);
  const word = (m?.[1] ?? "list").toLowerCase();
  const rest = (m?.[2] ?? "").trim();
  const usage = (what: string) => ({ error: `usage: /queue ${what}` });
  switch (word) {
    case "list":
    case "pause":
    case "resume":
    case "retry":
    case "clear":
      return rest ? usage(word) : { action: word };
    case "show":
    case "delete":
    case "rm": {
      const n = num(rest);
      return n === undefined ? usage(`${word === "rm" ? "delete" : word} N (N from /queue list)`) : { action: word === "rm" ? "delete" : word, n };
    }
    case "edit": {
      const e = /^(\S+)\s+([\s\S]+)$/.exec(rest);
      const n = num(e?.[1]);
      return n === undefined || !e?.[2]?.trim() ? usage("edit N TEXT") : { action: "edit", n, text: e[2].trim() };
    }
    case "move": {
      const [a, b, ...more] = rest.split(/\s+/);
      const n = num(a);
      const to = num(b);
      return n === undefined || to === undefined || more.length ? usage("move N M (N to position M)") : { action: "move", n, to };
    }
    case "add":
      return rest ? { action: "add", text: rest } : usage("add TEXT");
    default:
      return { error: `unknown /queue subcommand "${word}": ${QUEUE_USAGE}` };
  }
}
