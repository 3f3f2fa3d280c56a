/**
 * The per-workspace remote lock's client side: the keeper that ties the lock to
 * this SSH session and relays our progress to waiters.
 */
import type { Client } from "ssh2";
import { REMOTE_SH, execChannel, shQuote } from "../ssh/exec.ts";
import { ReasonixError } from "../../core/errors.ts";
import { HOLD_SCRIPT } from "./scripts.ts";

/** Who holds the lock, as every fenced script checks it: the slug and our lock id. */
export interface Fence {
  slug: string;
  lockId: string;
  /** Set once a fenced script released the lock as its last step (nothing is left to release). */
  released?: boolean;
}

/**
 * A fenced step found the lock taken over (we were paused past the staleness window):
 * nothing was done; the caller starts over and adopts what the new holder made.
 */
export const lockLost = (step: string) =>
  new ReasonixError("remote_lock_lost", `another client took over the remote serve lock before ${step}; nothing was changed`);
export const isLockLost = (e: unknown) => e instanceof ReasonixError && e.code === "remote_lock_lost";

/** The staleness window (seconds) waiters apply: REASONIX_REMOTE_LOCK_STALE_S (tests), else 60. */
export function lockStaleSeconds(): number {
  const n = Number(process.env.REASONIX_REMOTE_LOCK_STALE_S);
  return Number.isInteger(n) && n > 0 ? n : 60;
}

/**
 * Run the lock keeper (HOLD_SCRIPT) on its own channel: its pid ties the lock to this
 * SSH session, and it relays our progress to clients waiting for the lock.
 */
export async function holdLock(client: Client, slug: string, lockId: string): Promise<{ progress(line: string): void; end(): void }> {
  const none = { progress: () => {}, end: () => {} };
  let ch: import("ssh2").ClientChannel;
  try {
    ch = await execChannel(client, REMOTE_SH);
  } catch {
    return none; // no extra channel: the stamp's 60 s rule still frees the lock
  }
  const held = await new Promise<boolean>((resolve) => {
    let out = "";
    const t = setTimeout(() => resolve(false), 15_000);
    ch.on("data", (d: Buffer) => {
      out += d.toString();
      if (/^held=1$/m.test(out)) {
        clearTimeout(t);
        resolve(true);
      } else if (/^not_owner=1$/m.test(out)) {
        clearTimeout(t);
        resolve(false);
      }
    });
    ch.on("close", () => {
      clearTimeout(t);
      resolve(false);
    });
    ch.write(`set -- ${[slug, lockId].map(shQuote).join(" ")}\n${HOLD_SCRIPT}\n`);
  });
  if (!held) {
    ch.close();
    return none;
  }
  let last = 0;
  let pending: string | null = null;
  return {
    progress(line: string) {
      const now = Date.now();
      pending = line;
      if (now - last < 500) return;
      last = now;
      ch.write(`${pending}\n`);
      pending = null;
    },
    end() {
      ch.end();
    },
  };
}
