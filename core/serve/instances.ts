import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import { processAlive } from "../process/alive.ts";

/** What one live serve/web process says about itself in the instances registry. */
export interface InstanceRecord {
  pid: number;
  /** "serve" or "web". */
  kind: string;
  /** Bound `host:port`. */
  addr: string;
  /** Base URL without any credential. */
  url: string;
  workspace: string;
  authMode: string;
  version: string;
  startedAt: string;
  heartbeatAt: string;
}

const HEARTBEAT_MS = 15_000;

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/**
 * Every record in `dir`. Records whose process is gone are deleted on the way
 * (lazily: nobody else cleans up after a crashed or killed server). Each
 * process only ever writes its own `<pid>.json`, so there is a single writer
 * per file and no locking.
 */
export function listInstances(dir: string, onDead?: (rec: InstanceRecord) => void): InstanceRecord[] {
  if (!existsSync(dir)) return [];
  const out: InstanceRecord[] = [];
  for (const name of readdirSync(dir)) {
    if (!/^\d+\.json$/.test(name)) continue;
    const file = join(dir, name);
    let rec: InstanceRecord | null = null;
    try {
      rec = JSON.parse(readFileSync(file, "utf8")) as InstanceRecord;
    } catch {
      // A torn or unreadable record: judge it by the pid in its name.
    }
    const pid = rec?.pid ?? Number(name.slice(0, -5));
    if (!processAlive(pid)) {
      // Its process ended without removing it (killed, out of memory, crashed):
      // told once, by whoever removes it.
      try { unlinkSync(file); } catch { continue; }
      if (rec) onDead?.(rec);
      continue;
    }
    if (rec) out.push(rec);
  }
  return out.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

/** This process's own heartbeat record; `close()` removes it. */
export class InstanceHeartbeat {
  readonly file: string;
  private timer: ReturnType<typeof setInterval> | undefined;
  private record: InstanceRecord;

  /** ONDEAD: a record whose server ended without removing it (swept here). */
  constructor(readonly dir: string, record: Omit<InstanceRecord, "pid" | "startedAt" | "heartbeatAt">, intervalMs = HEARTBEAT_MS, onDead?: (rec: InstanceRecord) => void) {
    ensurePrivateDir(dir);
    listInstances(dir, onDead); // sweep dead records left behind by others
    const now = new Date().toISOString();
    this.record = { pid: process.pid, startedAt: now, heartbeatAt: now, ...record };
    this.file = join(dir, `${process.pid}.json`);
    this.write();
    this.timer = setInterval(() => this.beat(), intervalMs);
    this.timer.unref?.();
  }

  private write(): void {
    writeFileAtomic(this.file, `${JSON.stringify(this.record, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
  }

  beat(): void {
    this.record = { ...this.record, heartbeatAt: new Date().toISOString() };
    try { this.write(); } catch {
      // A full disk must not take the server down; the next beat retries.
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    try { unlinkSync(this.file); } catch {}
  }
}
