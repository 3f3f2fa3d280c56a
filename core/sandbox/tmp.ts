// Session-private temp dirs. All of them live under one per-user parent,
// which the Linux profile hides, so a command sees only its own session's.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveReal } from "../policy/paths.ts";

/** Parent of every session temp dir for this user. */
export function sessionTmpParent(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  const dir = join(resolveReal(tmpdir()), `reasonix-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A fresh private temp dir (0700) for one chat session. */
export function createSessionTmpDir(): string {
  return mkdtempSync(join(sessionTmpParent(), "session-"));
}

/** Remove a session temp dir (on /new, /clear, session switch). */
export function removeSessionTmpDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
