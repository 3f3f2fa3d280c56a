/**
 * Each session's last recall trace (what `/memory recall` and the Memory
 * panel show), kept in memory and in a file beside the session's blobs, so a
 * session reopened later — by another process, a restarted server — still
 * shows what recall chose for its last message. Deleting the session deletes
 * the file with its folder. The file names the workspace: sessions of every
 * workspace share one store, and another workspace's trace (its project
 * facts) is never shown here. It is written like the session's other files:
 * atomically (a temp file, fsync, rename), mode 0600.
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { RecallTrace } from "./recall.ts";

const looksLikeTrace = (t: unknown): t is RecallTrace =>
  !!t && typeof t === "object" && typeof (t as RecallTrace).query === "string" && Array.isArray((t as RecallTrace).picked) && Array.isArray((t as RecallTrace).overBudget) && typeof (t as RecallTrace).budget === "object";

export class RecallTraces {
  /** Traces that could not be written (read-only home, full disk): this process still shows them. */
  private readonly unsaved = new Map<string, RecallTrace>();

  /** `pathFor(id)`: where session `id`'s trace file lives; `workspace`: the engine's (real path). */
  constructor(private readonly pathFor: (id: string) => string, private readonly workspace: string) {}

  set(id: string, trace: RecallTrace): RecallTrace {
    try {
      writeFileAtomic(this.pathFor(id), JSON.stringify({ workspace: this.workspace, trace }), { mode: 0o600, dirMode: 0o700 });
      this.unsaved.delete(id);
    } catch {
      // A trace never fails the turn: this process keeps it.
      this.unsaved.set(id, trace);
    }
    return trace;
  }

  /**
   * The last trace of session `id`, read from its file each time (another
   * process may have run the session since); one this process could not
   * write comes first.
   */
  get(id: string): RecallTrace | undefined {
    const unsaved = this.unsaved.get(id);
    if (unsaved) return unsaved;
    try {
      const kept = JSON.parse(readFileSync(this.pathFor(id), "utf8")) as { workspace?: unknown; trace?: unknown } | null;
      return kept?.workspace === this.workspace && looksLikeTrace(kept.trace) ? kept.trace : undefined;
    } catch {
      return undefined; // none kept, an invalid id, or an unreadable file
    }
  }

  /** Forget this process's unsaved copy (the file goes with the session's folder). */
  forget(id: string): void {
    this.unsaved.delete(id);
  }
}
