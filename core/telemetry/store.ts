// Usage-counter state on disk, under $REASONIX_HOME/telemetry/ (0700):
// choice.json — the saved answer, the random install id and the day of the
// last ping (0600); queue.json — day records not sent yet, at most MAX_QUEUE
// (0600, the oldest dropped). Both are written atomically.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import { validatePayload, type TelemetryPayload } from "./schema.ts";
import { randomHex } from "../random.ts";

export const MAX_QUEUE = 14;

export interface TelemetryState {
  choice: "yes" | "no";
  /** 128 random bits as hex: not derived from an account, a machine or a path. */
  install_id: string;
  decided_at: string;
  /** UTC day (YYYY-MM-DD) of the last ping attempt: at most one a day. */
  last_ping?: string;
}

export const telemetryDir = (home: string): string => join(home, "telemetry");
const choicePath = (home: string) => join(telemetryDir(home), "choice.json");
const queuePath = (home: string) => join(telemetryDir(home), "queue.json");

export const newInstallId = (): string => randomHex(16);
export const utcDay = (now = new Date()): string => now.toISOString().slice(0, 10);

function write(path: string, value: unknown, home: string): void {
  const dir = telemetryDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
}

/** The saved choice; undefined when none was saved (or the file is not one this version wrote). */
export function readState(home: string): TelemetryState | undefined {
  try {
    const s = JSON.parse(readFileSync(choicePath(home), "utf8")) as TelemetryState;
    if ((s.choice === "yes" || s.choice === "no") && /^[0-9a-f]{32}$/.test(s.install_id)) return s;
  } catch { /* none saved */ }
  return undefined;
}

/** Save CHOICE (keeping the install id); throws when it cannot be saved. "no" also drops pending counters. */
export function saveChoice(home: string, choice: "yes" | "no", now = new Date()): TelemetryState {
  const old = readState(home);
  const state: TelemetryState = { choice, install_id: old?.install_id ?? newInstallId(), decided_at: now.toISOString(), ...(old?.last_ping ? { last_ping: old.last_ping } : {}) };
  write(choicePath(home), state, home);
  if (choice === "no") clearQueue(home);
  return state;
}

export function markPinged(home: string, day: string): void {
  const s = readState(home);
  if (s) write(choicePath(home), { ...s, last_ping: day }, home);
}

/** Pending day records; anything that does not pass the allow-list is dropped on reading. */
export function readQueue(home: string): TelemetryPayload[] {
  try {
    const q = JSON.parse(readFileSync(queuePath(home), "utf8")) as unknown;
    return Array.isArray(q) ? q.filter((p): p is TelemetryPayload => validatePayload(p).length === 0) : [];
  } catch {
    return [];
  }
}

/** Add RECORD's counts to the queue (merged with the same day and surface), keeping the newest MAX_QUEUE. */
export function addToQueue(home: string, record: TelemetryPayload): void {
  if (validatePayload(record).length) return;
  const q = readQueue(home);
  const same = q.find((p) => p.day === record.day && p.surface === record.surface && p.install_id === record.install_id && p.version === record.version);
  if (same) {
    const into = same.counters as Record<string, Record<string, number>>;
    for (const [family, buckets] of Object.entries(record.counters as Record<string, Record<string, number>>)) {
      const f = (into[family] ??= {});
      for (const [b, n] of Object.entries(buckets)) f[b] = Math.min((f[b] ?? 0) + n, 100_000);
    }
  } else q.push(record);
  q.sort((a, b) => a.day.localeCompare(b.day));
  write(queuePath(home), q.slice(-MAX_QUEUE), home);
}

/** Drop the pending counters (`reasonix config telemetry off`, a "no", after a ping the collector accepted). */
export function clearQueue(home: string): void {
  if (existsSync(queuePath(home))) rmSync(queuePath(home), { force: true });
}
