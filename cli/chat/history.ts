// Input history of the chat, one file per workspace under
// $REASONIX_HOME/chat-history/, mode 0600 (prompts can hold secrets), written
// atomically (temp file + rename).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/fs/atomic.ts";

const MAX = 500;

export class InputHistory {
  readonly file: string;
  private readonly workspace: string;
  private items: string[] = [];

  constructor(home: string, workspace: string) {
    // Bun's hasher: node:crypto would cost ~5 ms of CPU before the first frame.
    const id = new Bun.CryptoHasher("sha256").update(workspace).digest("hex").slice(0, 16);
    this.file = join(home, "chat-history", `${id}.json`);
    try {
      const data = JSON.parse(readFileSync(this.file, "utf8")) as { workspace?: string; items?: unknown };
      if (Array.isArray(data.items)) this.items = data.items.filter((x): x is string => typeof x === "string").slice(-MAX);
    } catch {
      // No history yet, or an unreadable file: start empty (it is rewritten on the next entry).
    }
    this.workspace = workspace;
  }

  /** Oldest first. */
  entries(): string[] {
    return [...this.items];
  }

  add(text: string): void {
    const t = text.trim();
    if (!t || this.items.at(-1) === t) return;
    this.items.push(t);
    if (this.items.length > MAX) this.items = this.items.slice(-MAX);
    try {
      writeFileAtomic(this.file, JSON.stringify({ workspace: this.workspace, items: this.items }), { mode: 0o600, dirMode: 0o700 });
    } catch {
      // History is a convenience: a read-only home must not break the chat.
    }
  }
}
