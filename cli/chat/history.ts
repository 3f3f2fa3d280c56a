// Input history of the chat, one file per workspace under
// $REASONIX_HOME/chat-history/, mode 0600 (prompts can hold secrets), written
// atomically (temp file + rename).
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const MAX = 500;

export class InputHistory {
  readonly file: string;
  private items: string[] = [];

  constructor(home: string, workspace: string) {
    const id = createHash("sha256").update(workspace).digest("hex").slice(0, 16);
    this.file = join(home, "chat-history", `${id}.json`);
    try {
      const data = JSON.parse(readFileSync(this.file, "utf8")) as { workspace?: string; items?: unknown };
      if (Array.isArray(data.items)) this.items = data.items.filter((x): x is string => typeof x === "string").slice(-MAX);
    } catch {
      // No history yet, or an unreadable file: start empty (it is rewritten on the next entry).
    }
    this.workspace = workspace;
  }

  private readonly workspace: string;

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
      mkdirSync(join(this.file, ".."), { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ workspace: this.workspace, items: this.items }), { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.file);
    } catch {
      // History is a convenience: a read-only home must not break the chat.
    }
  }
}
